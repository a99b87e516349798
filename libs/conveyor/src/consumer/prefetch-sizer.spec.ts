import { PrefetchSizer } from './prefetch-sizer';

/** Claims answered back to back, each after `roundTrip` ms, with `startsPerClaim(size)` jobs started between. */
function drive(sizer: PrefetchSizer, claims: number, roundTrip: number, startsPerClaim: (size: number) => number): number[] {
  const sizes: number[] = [];
  let now = 0;
  for (let i = 0; i < claims; i++) {
    sizer.started(startsPerClaim(sizer.current));
    sizer.claimAnswered(now, now + roundTrip);
    now += roundTrip;
    sizes.push(sizer.current);
  }
  return sizes;
}

describe('PrefetchSizer', () => {
  it('uses a fixed prefetch as given, whatever the start rate', () => {
    const sizer = new PrefetchSizer(7, 200);
    expect(drive(sizer, 10, 2, () => 500)).toEqual(Array(10).fill(7));
  });

  it('starts at nothing buffered under auto', () => {
    expect(new PrefetchSizer('auto', 200).current).toBe(0);
  });

  it('grows to the maximum within a few round trips when every claimed job starts at once (a deep backlog of quick jobs)', () => {
    const concurrency = 10;
    const sizes = drive(new PrefetchSizer('auto', 200), 8, 3, (size) => concurrency + size);
    expect(sizes.slice(0, 3).every((s, i) => i === 0 || s > sizes[i - 1])).toBe(true);
    expect(sizes.indexOf(200)).toBeGreaterThan(0);
    expect(sizes.indexOf(200)).toBeLessThanOrEqual(6);
    expect(sizes.at(-1)).toBe(200);
  });

  it('buffers nothing for slow jobs: one start per second against a 2 ms claim', () => {
    const sizer = new PrefetchSizer('auto', 200);
    let now = 0;
    for (let i = 0; i < 20; i++) {
      sizer.started(1);
      sizer.claimAnswered(now + 998, now + 1000);
      now += 1000;
    }
    expect(sizer.current).toBe(0);
  });

  it('buffers what starts during about four round trips for jobs in between', () => {
    const sizer = new PrefetchSizer('auto', 200);
    let now = 0;
    // 100 jobs/s (10 handlers × 100 ms jobs), claims of 5 ms every 50 ms: 4 × 0.1/ms × 5 ms = 2.
    for (let i = 0; i < 30; i++) {
      sizer.started(5);
      sizer.claimAnswered(now + 45, now + 50);
      now += 50;
    }
    expect(sizer.current).toBe(2);
  });

  it('shrinks back once the backlog is gone and claims come back empty', () => {
    const sizer = new PrefetchSizer('auto', 200);
    drive(sizer, 10, 3, (size) => 10 + size);
    expect(sizer.current).toBe(200);
    let now = 1_000;
    for (let i = 0; i < 12; i++) {
      sizer.claimAnswered(now, now + 2);
      now += 1_000; // idle: the fallback poll answers nothing once a second
    }
    expect(sizer.current).toBe(0);
  });
});
