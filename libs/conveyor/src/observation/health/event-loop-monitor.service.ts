import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { CONVEYOR_OPTIONS } from '../../config/conveyor.constants';
import { ConveyorOptions } from '../../config/conveyor-options.interface';

/** Sampling resolution of the delay histogram: finer costs timer wake-ups and tells liveness nothing more. */
const RESOLUTION_MS = 20;

/**
 * Measures how long this process's event loop went without turning, for liveness.
 *
 * A blocked loop cannot answer a probe at all, so a probe can only learn of a block once it is over. The monitor
 * therefore keeps the longest delay seen over a sliding pair of windows: the current one and the one before. A
 * window lasts twice `livenessEventLoopDelayMs` (at least a second), so after a block at or beyond the limit,
 * liveness stays down for one to two windows — long enough for a probe to see it, short enough that a single
 * hiccup costs one or two failed probes rather than a restart, while a loop that keeps blocking keeps liveness
 * down until the orchestrator's failure threshold restarts the process. The window rotates on an unref'd timer,
 * which a block delays too: the block then lands in the "previous" window, still reported.
 */
@Injectable()
export class EventLoopMonitor implements OnModuleInit, OnModuleDestroy {
  private histogram: IntervalHistogram | null = null;
  private timer: NodeJS.Timeout | null = null;
  private previousMaxMs = 0;

  constructor(@Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions) {}

  /** Length of one measuring window. */
  get windowMs(): number {
    return Math.max(1_000, 2 * this.options.livenessEventLoopDelayMs);
  }

  /** The longest the event loop went without turning, over the current and the previous window. */
  get recentMaxDelayMs(): number {
    const current = this.histogram ? this.histogram.max / 1e6 : 0;
    return Math.max(this.previousMaxMs, current);
  }

  onModuleInit(): void {
    if (this.options.livenessEventLoopDelayMs === 0) return;
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.histogram.enable();
    this.timer = setInterval(() => this.rotate(), this.windowMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.histogram?.disable();
    this.timer = null;
    this.histogram = null;
  }

  private rotate(): void {
    if (!this.histogram) return;
    // A window without a sample is no evidence of anything.
    this.previousMaxMs = this.histogram.count > 0 ? this.histogram.max / 1e6 : 0;
    this.histogram.reset();
  }
}
