/** Due times kept at most; beyond them the latest are dropped (DueTimes). */
export const MAX_DUE_TIMES = 1_000;

/**
 * The due times (epoch ms, database clock) this instance has heard of and not reached yet, earliest first, each
 * once: the poller's due timer is armed for the earliest, and when it fires, for the next. Past MAX_DUE_TIMES the
 * latest are dropped: the fallback poll finds their jobs.
 */
export class DueTimes {
  private readonly times: number[] = [];

  get size(): number {
    return this.times.length;
  }

  /** Keeps `at`; true when it is the new earliest (the timer is to be armed for it). */
  add(at: number): boolean {
    const i = this.indexOf(at);
    if (this.times[i] === at || i === MAX_DUE_TIMES) return false;
    this.times.splice(i, 0, at);
    if (this.times.length > MAX_DUE_TIMES) this.times.pop();
    return i === 0;
  }

  /** Forgets the times `now` has reached (a claim sent now sees their jobs); returns the earliest left, or null. */
  reached(now: number): number | null {
    this.times.splice(0, this.indexOf(now + 1));
    return this.times.length > 0 ? this.times[0] : null;
  }

  /** Where `at` is or would go: the number of times before it. */
  private indexOf(at: number): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.times[mid] < at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
