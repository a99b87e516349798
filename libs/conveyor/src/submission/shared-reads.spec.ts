import { SharedReads } from './shared-reads';

/** A read that answers when the spec says so, counting how often it was started. */
class ControlledLoad {
  started = 0;
  private pending: Array<{ resolve: (v: string) => void; reject: (e: Error) => void }> = [];

  readonly load = () => {
    this.started++;
    return new Promise<string>((resolve, reject) => this.pending.push({ resolve, reject }));
  };

  answer(value: string): void {
    this.pending.shift()!.resolve(value);
  }

  fail(error: Error): void {
    this.pending.shift()!.reject(error);
  }
}

describe('SharedReads', () => {
  let clock: number;
  let reads: SharedReads<string, string>;
  let db: ControlledLoad;

  beforeEach(() => {
    clock = 0;
    reads = new SharedReads({ minAgeMs: 1_000, maxAgeMs: 30_000, reuseFactor: 4, now: () => clock });
    db = new ControlledLoad();
  });

  it('callers that ask while a read is under way share it', async () => {
    const asked = Array.from({ length: 20 }, () => reads.read('all', db.load));
    db.answer('a');
    expect(await Promise.all(asked)).toEqual(Array(20).fill('a'));
    expect(db.started).toBe(1);
  });

  it('reuses an answer for four times as long as it took, at least a second, at most 30 s', async () => {
    const cases = [
      { tookMs: 10, reusedMs: 1_000 },
      { tookMs: 800, reusedMs: 3_200 },
      { tookMs: 20_000, reusedMs: 30_000 },
    ];
    for (const { tookMs, reusedMs } of cases) {
      reads.forget();
      const started = db.started;
      const first = reads.read('all', db.load);
      clock += tookMs;
      db.answer(`took ${tookMs}`);
      expect(await first).toBe(`took ${tookMs}`);

      clock += reusedMs - 1;
      expect(await reads.read('all', db.load)).toBe(`took ${tookMs}`);
      expect(db.started).toBe(started + 1);

      clock += 1;
      const again = reads.read('all', db.load);
      expect(db.started).toBe(started + 2);
      db.answer('fresh');
      expect(await again).toBe('fresh');
    }
  });

  it('keeps each key apart', async () => {
    const fifteen = reads.read('15', db.load);
    const sixty = reads.read('60', db.load);
    expect(db.started).toBe(2);
    db.answer('for 15');
    db.answer('for 60');
    expect([await fifteen, await sixty]).toEqual(['for 15', 'for 60']);
    expect(await reads.read('15', db.load)).toBe('for 15');
    expect(db.started).toBe(2);
  });

  it('does not keep a failed read: every waiting caller gets its error, and the next caller reads again', async () => {
    const asked = [reads.read('all', db.load), reads.read('all', db.load)];
    db.fail(new Error('connection lost'));
    for (const a of asked) await expect(a).rejects.toThrow('connection lost');

    const again = reads.read('all', db.load);
    expect(db.started).toBe(2);
    db.answer('back');
    expect(await again).toBe('back');
  });

  it('after forget(), reads start afresh, and a read begun before it answers its callers but is not kept', async () => {
    const before = reads.read('all', db.load);
    reads.forget();
    const after = reads.read('all', db.load);
    expect(db.started).toBe(2);
    db.answer('before the change');
    db.answer('after the change');
    expect(await before).toBe('before the change');
    expect(await after).toBe('after the change');
    expect(await reads.read('all', db.load)).toBe('after the change');

    reads.forget();
    const next = reads.read('all', db.load);
    expect(db.started).toBe(3);
    db.answer('newest');
    expect(await next).toBe('newest');
  });
});
