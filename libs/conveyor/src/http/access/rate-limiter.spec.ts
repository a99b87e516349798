import { RateLimiter } from './rate-limiter';

describe('RateLimiter', () => {
  let now = 0;
  const limiter = (max: number, windowMs: number, maxTracked = 100) => new RateLimiter({ max, windowMs, maxTracked }, () => now);

  beforeEach(() => {
    now = 1_000_000;
  });

  it('allows max requests per window, then refuses until the window resets', () => {
    const l = limiter(3, 10_000);
    expect([1, 2, 3].map(() => l.hit('a').allowed)).toEqual([true, true, true]);
    now += 4_000;
    expect(l.hit('a')).toEqual({ allowed: false, remaining: 0, resetMs: 6_000 });
    now += 6_000;
    expect(l.hit('a')).toEqual({ allowed: true, remaining: 2, resetMs: 10_000 });
  });

  it('counts each caller on its own', () => {
    const l = limiter(1, 10_000);
    expect(l.hit('a').allowed).toBe(true);
    expect(l.hit('a').allowed).toBe(false);
    expect(l.hit('b').allowed).toBe(true);
  });

  it('forgets expired windows, so memory follows the callers of the current window only', () => {
    const l = limiter(5, 1_000);
    for (let i = 0; i < 50; i++) l.hit(`ip:${i}`);
    expect(l.size).toBe(50);
    now += 1_000;
    l.hit('late');
    expect(l.size).toBe(1);
  });

  it('never tracks more than maxTracked callers: the oldest window is dropped', () => {
    const l = limiter(1, 60_000, 3);
    for (const c of ['a', 'b', 'c', 'd']) {
      l.hit(c);
      now += 1;
    }
    expect(l.size).toBe(3);
    // 'a' was dropped and starts afresh; 'd' is still counted.
    expect(l.hit('a').allowed).toBe(true);
    expect(l.hit('d').allowed).toBe(false);
  });

  it('keeps to its window length when the wall clock is stepped back', () => {
    const wall = jest.spyOn(Date, 'now').mockReturnValue(1_000_000_000_000);
    try {
      const l = new RateLimiter({ max: 1, windowMs: 1_000, maxTracked: 100 });
      expect(l.hit('a').allowed).toBe(true);
      wall.mockReturnValue(1_000_000_000_000 - 3_600_000);
      const refused = l.hit('a');
      expect(refused.allowed).toBe(false);
      expect(refused.resetMs).toBeLessThanOrEqual(1_000);
    } finally {
      wall.mockRestore();
    }
  });
});
