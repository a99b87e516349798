/** Something with a deadline that can be told it has passed. */
export interface Expiring {
  /** performance.now() at which `expire` is due. */
  deadline: number;
  expire(): void;
}

/** The longest a Node timer waits: a longer delay is not waited at all, the timer fires after 1 ms. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * One timer for the deadlines of every running attempt, instead of a `setTimeout` per attempt.
 *
 * A Timeout object per job (made, linked into Node's timer list, unlinked, collected) would cost as much as a
 * no-op job itself. Here an attempt is a Set entry; the single timer is armed for the earliest
 * deadline known when it is armed. Attempts that end early are only removed from the Set: the timer is
 * not re-armed for them, and when it fires it expires what is due and re-arms for the earliest deadline
 * left. In a steady stream of short jobs that is one wake-up per timeout period, whatever the job rate.
 *
 * When the last entry leaves, the timer is not cleared but unref'd: it no longer keeps the process alive,
 * and it fires once more at most, finds nothing and is gone. Clearing it would make a worker running
 * jobs one at a time (each ends before the next starts) create and clear a Timeout per job after all;
 * this way the next attempt only refs the timer again. An idle worker keeps nothing alive and, after that
 * one last wake-up, holds no timer at all.
 */
export class AttemptDeadlines<T extends Expiring> {
  private readonly entries = new Set<T>();
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Infinity;

  /** Watches `entry` until `remove` (its deadline must be set). */
  add(entry: T): void {
    this.entries.add(entry);
    if (entry.deadline < this.armedFor) this.arm(entry.deadline);
    else if (this.entries.size === 1) this.timer?.ref();
  }

  remove(entry: T): void {
    if (this.entries.delete(entry) && this.entries.size === 0) this.timer?.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = at;
    // A deadline further off than a timer can wait is reached in steps: firing early expires nothing and re-arms.
    this.timer = setTimeout(() => this.fire(), Math.min(MAX_TIMER_DELAY_MS, Math.max(0, at - performance.now())));
  }

  private fire(): void {
    this.timer = null;
    this.armedFor = Infinity;
    const now = performance.now();
    const due: T[] = [];
    for (const entry of this.entries) if (entry.deadline <= now) due.push(entry);
    for (const entry of due) {
      this.entries.delete(entry);
      entry.expire();
    }
    // Expiring may have added or removed entries (and armed the timer); re-arm from what is left.
    if (this.timer !== null || this.entries.size === 0) return;
    let next = Infinity;
    for (const entry of this.entries) if (entry.deadline < next) next = entry.deadline;
    this.arm(next);
  }
}
