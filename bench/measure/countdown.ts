/** Thrown when a countdown stops moving: the queue lost or stuck jobs, or the process is starved. */
export class StalledError extends Error {
  constructor(what: string, count: number, target: number, stallMs: number) {
    super(`${what}: stuck at ${count} of ${target} for ${stallMs} ms`);
    this.name = 'StalledError';
  }
}

/**
 * Counts events up to a target and notes when the target was reached (performance.now()). Instead of
 * a deadline it has a stall watchdog: it fails only when no progress at all was made for `stallMs`,
 * so a slow machine is not mistaken for a broken queue.
 */
export class Countdown {
  count = 0;
  /** performance.now() of the first and of the last `add`. */
  firstAt = NaN;
  lastAt = NaN;
  private resolveDone!: (at: number) => void;
  private rejectDone!: (err: Error) => void;
  private readonly done: Promise<number>;
  private watchdog: NodeJS.Timeout | null = null;

  constructor(
    readonly target: number,
    private readonly what: string,
    private readonly stallMs = 30_000,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    this.done.catch(() => undefined);
  }

  add(n = 1): void {
    const now = performance.now();
    if (this.count === 0) this.firstAt = now;
    this.lastAt = now;
    this.count += n;
    if (this.count >= this.target) {
      this.stopWatchdog();
      this.resolveDone(now);
    }
  }

  /** Resolves with the time the target was reached; starts the stall watchdog. */
  reached(): Promise<number> {
    if (this.count < this.target && !this.watchdog) {
      let seen = this.count;
      let movedAt = performance.now();
      this.watchdog = setInterval(() => {
        if (this.count !== seen) {
          seen = this.count;
          movedAt = performance.now();
        } else if (performance.now() - movedAt > this.stallMs) {
          this.stopWatchdog();
          this.rejectDone(new StalledError(this.what, this.count, this.target, this.stallMs));
        }
      }, 500);
    }
    return this.done;
  }

  private stopWatchdog(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
  }
}
