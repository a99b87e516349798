import { readFileSync } from 'node:fs';

const SAMPLE_EVERY_MS = 250;
const MB = 1024 * 1024;

/** Resident memory of this process over a measured phase. */
export interface RssUsed {
  /** RSS when the phase started. */
  startMb: number;
  /** Highest RSS sampled (every 250 ms) during the phase. */
  sampledPeakMb: number;
  /** The kernel's high-water mark of the whole process (VmHWM), warm-up and set-up included: the conservative peak. */
  peakMb: number;
}

/** Samples `process.memoryUsage.rss()` between `start()` and `stop()` and reads VmHWM at the end. */
export class RssMeter {
  private startMb = NaN;
  private peakMb = NaN;
  private timer: NodeJS.Timeout | null = null;

  start(): void {
    this.startMb = this.peakMb = process.memoryUsage.rss() / MB;
    this.timer = setInterval(() => (this.peakMb = Math.max(this.peakMb, process.memoryUsage.rss() / MB)), SAMPLE_EVERY_MS);
  }

  stop(): RssUsed {
    if (this.timer) clearInterval(this.timer);
    const now = process.memoryUsage.rss() / MB;
    const sampledPeakMb = Math.max(this.peakMb, now);
    return { startMb: this.startMb, sampledPeakMb, peakMb: highWaterMarkMb() ?? sampledPeakMb };
  }
}

/** VmHWM from /proc/self/status, in MB; undefined without /proc. */
function highWaterMarkMb(): number | undefined {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}
