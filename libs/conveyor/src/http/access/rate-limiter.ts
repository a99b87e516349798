import { RateLimitOptions } from '../options/conveyor-http-options.interface';

/** The answer to one request. */
export interface RateLimitVerdict {
  allowed: boolean;
  /** Requests left in the caller's current window. */
  remaining: number;
  /** Milliseconds until the caller's window resets. */
  resetMs: number;
}

/**
 * An in-memory fixed-window counter per caller. Windows live in a Map in the order they started (an
 * expired window is deleted before its caller starts a new one, which goes to the end), so expired
 * windows are always at the front and eviction stops at the first live one: amortised O(1) per request.
 * Past `maxTracked` callers the oldest window is dropped — that caller gets a fresh count, which is the
 * price of memory that cannot grow with the number of client addresses. Per process: N instances behind
 * a load balancer allow up to N × max. Time is the process's monotonic clock: a wall clock stepped back would
 * leave windows that started "later" in force for the step on top of their length, and out of order.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly options: Required<RateLimitOptions>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Counts one request of `caller` and says whether it is within the limit. */
  hit(caller: string): RateLimitVerdict {
    const now = this.now();
    this.evictExpired(now);
    let window = this.windows.get(caller);
    if (!window) {
      if (this.windows.size >= this.options.maxTracked) this.windows.delete(this.windows.keys().next().value as string);
      window = { start: now, count: 0 };
      this.windows.set(caller, window);
    }
    window.count++;
    const resetMs = window.start + this.options.windowMs - now;
    const allowed = window.count <= this.options.max;
    return { allowed, remaining: Math.max(0, this.options.max - window.count), resetMs };
  }

  /** Callers currently tracked (for tests and metrics). */
  get size(): number {
    return this.windows.size;
  }

  private evictExpired(now: number): void {
    for (const [caller, window] of this.windows) {
      if (window.start + this.options.windowMs > now) return;
      this.windows.delete(caller);
    }
  }
}
