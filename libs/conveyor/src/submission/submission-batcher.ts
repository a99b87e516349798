/** Sends a group of items as one unit of work and settles each item on its own, in the group's order. */
export type GroupFlush<T, R> = (items: T[]) => Promise<Array<PromiseSettledResult<R>>>;

/** A bound on a group's total weight, besides its count; `weigh` gives an item's, and may be asked more than once. */
export interface GroupBudget<T> {
  weigh(item: T): number;
  maxWeight: number;
}

interface Waiting<T, R> {
  item: T;
  resolve(value: R): void;
  reject(reason: unknown): void;
}

/**
 * Group commit for submissions of unrelated callers. The protocol:
 *
 * - Idle (no group in flight): a submission goes out at once, alone, in the same tick. There is no timer, so a
 *   lone caller waits for nothing but its own statement.
 * - Busy (one group in flight): submissions wait in arrival order. When the group in flight is answered, everything
 *   waiting goes out as the next group, up to `maxGroup` items and, with a `budget`, up to its weight (an item
 *   heavier than the whole budget goes alone); more waits for the group after that.
 * - At most one group is in flight, so under load a group holds what arrived during one round trip and commit of
 *   the group before it: the busier the service, the larger the groups, the fewer the commits per submission.
 *
 * Each caller gets its own item's result. The flush answers every item, a failure included; only a flush that
 * rejects as a whole fails its whole group.
 */
export class SubmissionBatcher<T, R> {
  private readonly queue: Array<Waiting<T, R>> = [];
  private inFlight = false;

  constructor(
    private readonly flush: GroupFlush<T, R>,
    private readonly maxGroup: number,
    private readonly budget?: GroupBudget<T>,
  ) {
    if (!(maxGroup >= 1)) throw new RangeError(`maxGroup must be at least 1, got ${maxGroup}`);
  }

  /** Submits one item: sent now when nothing is in flight, else with the next group. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.inFlight) this.sendNext();
    });
  }

  /** Items waiting for the group in flight to be answered (for tests and diagnostics). */
  get waiting(): number {
    return this.queue.length;
  }

  /** Whether a group is in flight. */
  get busy(): boolean {
    return this.inFlight;
  }

  private sendNext(): void {
    const group = this.queue.splice(0, this.groupSize());
    this.inFlight = group.length > 0;
    if (!this.inFlight) return;
    let answered: Promise<Array<PromiseSettledResult<R>>>;
    try {
      answered = this.flush(group.map((w) => w.item));
    } catch (err) {
      answered = Promise.reject(err);
    }
    void answered
      .then(
        (results) => settle(group, results),
        (err: unknown) => group.forEach((w) => w.reject(err)),
      )
      .finally(() => this.sendNext());
  }

  /** How many of the waiting items the next group takes: arrival order, within the count and the budget. */
  private groupSize(): number {
    const most = Math.min(this.queue.length, this.maxGroup);
    const budget = this.budget;
    return budget ? countWithin(most, (n) => budget.weigh(this.queue[n].item), budget.maxWeight) : most;
  }
}

function settle<T, R>(group: Array<Waiting<T, R>>, results: Array<PromiseSettledResult<R>>): void {
  if (results.length !== group.length) {
    const err = new Error(`A group of ${group.length} submissions was answered with ${results.length} results`);
    group.forEach((w) => w.reject(err));
    return;
  }
  for (let i = 0; i < group.length; i++) {
    const r = results[i];
    if (r.status === 'fulfilled') group[i].resolve(r.value);
    else group[i].reject(r.reason);
  }
}

/**
 * How many of the first `count` items one group (or statement) takes: all of them, or as many as stay within
 * `maxWeight`, and at least one (an item heavier than the whole budget goes alone).
 */
export function countWithin(count: number, weightOf: (index: number) => number, maxWeight: number): number {
  let weight = 0;
  for (let n = 0; n < count; n++) {
    weight += weightOf(n);
    if (n > 0 && weight > maxWeight) return n;
  }
  return count;
}
