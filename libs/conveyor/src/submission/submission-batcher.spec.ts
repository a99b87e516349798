import { countWithin, SubmissionBatcher } from './submission-batcher';

/** A flush the test answers by hand: each call is recorded with the items it was given. */
function manualFlush<T>() {
  const calls: Array<{ items: T[]; answer(results: Array<PromiseSettledResult<string>>): void; fail(err: unknown): void }> = [];
  const flush = (items: T[]) =>
    new Promise<Array<PromiseSettledResult<string>>>((resolve, reject) => calls.push({ items, answer: resolve, fail: reject }));
  return { calls, flush };
}

const ok = (value: string): PromiseSettledResult<string> => ({ status: 'fulfilled', value });
const echo = <T>(items: T[]) => items.map((i) => ok(`done ${String(i)}`));
/** Lets every settled promise run its callbacks. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('SubmissionBatcher', () => {
  it('sends a lone submission at once, in the same tick, alone', async () => {
    const { calls, flush } = manualFlush<number>();
    const batcher = new SubmissionBatcher(flush, 100);
    const answer = batcher.submit(1);
    // No await between submit and the flush: no timer, no microtask.
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    expect(batcher.busy).toBe(true);
    calls[0].answer([ok('one')]);
    await expect(answer).resolves.toBe('one');
    await settled();
    expect(batcher.busy).toBe(false);
  });

  it('queues submissions while a group is in flight and sends them together when it is answered', async () => {
    const { calls, flush } = manualFlush<number>();
    const batcher = new SubmissionBatcher(flush, 100);
    const first = batcher.submit(1);
    const later = [2, 3, 4].map((n) => batcher.submit(n));
    expect(calls).toHaveLength(1);
    expect(batcher.waiting).toBe(3);
    calls[0].answer(echo(calls[0].items));
    await first;
    await settled();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    expect(batcher.waiting).toBe(0);
    calls[1].answer(echo(calls[1].items));
    await expect(Promise.all(later)).resolves.toEqual(['done 2', 'done 3', 'done 4']);
  });

  it('sends at most maxGroup items per group, in arrival order; the rest go with the next', async () => {
    const { calls, flush } = manualFlush<number>();
    const batcher = new SubmissionBatcher(flush, 2);
    const all = [1, 2, 3, 4, 5, 6].map((n) => batcher.submit(n));
    for (let i = 0; i < 4; i++) {
      calls[i].answer(echo(calls[i].items));
      await settled();
    }
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3], [4, 5], [6]]);
    await expect(Promise.all(all)).resolves.toHaveLength(6);
  });

  it('with a budget, closes a group before the item that would pass its weight; an item heavier than it goes alone', async () => {
    const { calls, flush } = manualFlush<number>();
    // Each item weighs its own value; a group may weigh 10.
    const batcher = new SubmissionBatcher(flush, 100, { weigh: (n) => n, maxWeight: 10 });
    const all = [1, 4, 5, 2, 12, 3, 3].map((n) => batcher.submit(n));
    for (let i = 0; i < 5; i++) {
      calls[i].answer(echo(calls[i].items));
      await settled();
    }
    expect(calls.map((c) => c.items)).toEqual([[1], [4, 5], [2], [12], [3, 3]]);
    await expect(Promise.all(all)).resolves.toHaveLength(7);
  });

  it('settles each item on its own: a failed item rejects only its own caller', async () => {
    const { calls, flush } = manualFlush<string>();
    const batcher = new SubmissionBatcher(flush, 100);
    void batcher.submit('lead');
    const [a, b, c] = ['a', 'b', 'c'].map((s) => batcher.submit(s));
    calls[0].answer([ok('lead')]);
    await settled();
    const bad = new Error('b is bad');
    calls[1].answer([ok('A'), { status: 'rejected', reason: bad }, ok('C')]);
    await expect(a).resolves.toBe('A');
    await expect(b).rejects.toBe(bad);
    await expect(c).resolves.toBe('C');
  });

  it('fails the whole group when the flush rejects, and carries on with the next group', async () => {
    const { calls, flush } = manualFlush<number>();
    const batcher = new SubmissionBatcher(flush, 100);
    const first = batcher.submit(1);
    const second = batcher.submit(2);
    const down = new Error('connection lost');
    calls[0].fail(down);
    await expect(first).rejects.toBe(down);
    await settled();
    calls[1].answer([ok('two')]);
    await expect(second).resolves.toBe('two');
  });

  it('fails a group whose flush throws at once, or answers with the wrong number of results', async () => {
    const throwing = new SubmissionBatcher<number, string>(() => {
      throw new Error('bad input');
    }, 10);
    await expect(throwing.submit(1)).rejects.toThrow('bad input');
    // Nothing is stuck in flight after it.
    await expect(throwing.submit(2)).rejects.toThrow('bad input');

    const short = new SubmissionBatcher<number, string>(() => Promise.resolve([]), 10);
    await expect(short.submit(1)).rejects.toThrow('A group of 1 submissions was answered with 0 results');
  });

  it('is idle again once everything is answered: the next lone submission goes at once', async () => {
    let groups = 0;
    const batcher = new SubmissionBatcher<number, string>((items) => {
      groups++;
      return Promise.resolve(echo(items));
    }, 10);
    await batcher.submit(1);
    await settled();
    expect(batcher.busy).toBe(false);
    const next = batcher.submit(2);
    expect(groups).toBe(2);
    await expect(next).resolves.toBe('done 2');
  });

  it('refuses a maxGroup below 1', () => {
    expect(() => new SubmissionBatcher(() => Promise.resolve([]), 0)).toThrow(RangeError);
  });
});

describe('countWithin', () => {
  it('takes every item within the weight', () => {
    expect(countWithin(3, () => 1, 3)).toBe(3);
  });

  it('stops before the item that would pass the weight', () => {
    expect(countWithin(5, () => 2, 5)).toBe(2);
  });

  it('takes one item heavier than the whole weight alone', () => {
    expect(countWithin(3, (i) => (i === 0 ? 10 : 1), 5)).toBe(1);
  });

  it('takes nothing from nothing', () => {
    expect(countWithin(0, () => 1, 5)).toBe(0);
  });
});
