import { ConveyorHttpError } from '../conveyor-http.error';
import { ConveyorNetworkError } from '../conveyor-network.error';
import { claimRetryDelay, FAULT_MAX_BACKOFF_MS, UNREACHABLE_MAX_BACKOFF_MS } from './claim-backoff';

const refused = new ConveyorNetworkError(
  'POST',
  '/queues/q/claim',
  new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') }),
);
const timedOut = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
const answered = (status: number, retryAfterMs: number | null = null) =>
  new ConveyorHttpError(status, null, 'POST', '/queues/q/claim', retryAfterMs);
/** The longest pause: what claimRetryDelay gives when the random draw is at its top. */
const longest = (err: unknown, failures: number) => claimRetryDelay(err, failures, () => 0.999_999);

describe('claimRetryDelay', () => {
  it('waits at most 5 s while the service is away, however long it has been away', () => {
    for (const err of [refused, timedOut, answered(502), answered(503), answered(504)]) {
      expect([1, 2, 3, 4, 5, 6, 10, 100, 10_000].map((n) => longest(err, n))).toEqual([399, 799, 1599, 3199, 4999, 4999, 4999, 4999, 4999]);
    }
    expect(UNREACHABLE_MAX_BACKOFF_MS).toBe(5_000);
  });

  it('keeps backing off up to 30 s from a service that answers with a fault of its own or a 429 without Retry-After', () => {
    for (const err of [answered(500), answered(429)]) {
      expect([1, 5, 7, 8, 100].map((n) => longest(err, n))).toEqual([399, 6399, 25_599, 29_999, 29_999]);
    }
    expect(FAULT_MAX_BACKOFF_MS).toBe(30_000);
  });

  it('draws the pause uniformly from half its ceiling to the ceiling, so workers that failed together spread out', () => {
    expect([0, 0.25, 0.5].map((r) => claimRetryDelay(refused, 20, () => r))).toEqual([2500, 3125, 3750]);
    expect([0, 0.5].map((r) => claimRetryDelay(refused, 1, () => r))).toEqual([200, 300]);
    const draws = Array.from({ length: 2000 }, () => claimRetryDelay(refused, 20));
    // Never sooner than half the cap: each worker asks a service that is away at most once per 2.5 s.
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(2500);
    expect(Math.max(...draws)).toBeLessThan(5000);
    // Spread over the whole range: every fifth of it is drawn (a fixed pause would fill one).
    expect(new Set(draws.map((d) => Math.floor((d - 2500) / 500))).size).toBe(5);
  });

  it("waits at least the server's Retry-After, longer or shorter than the cap, and at most half as long again", () => {
    expect(claimRetryDelay(answered(503, 2000), 50, () => 0)).toBe(2000);
    expect(longest(answered(503, 2000), 50)).toBe(2999);
    expect(claimRetryDelay(answered(429, 60_000), 1, () => 0)).toBe(60_000);
    expect(longest(answered(429, 60_000), 1)).toBe(89_999);
    // A Retry-After of 0 does not make a tight loop of claims.
    expect(claimRetryDelay(answered(503, 0), 1, () => 0)).toBe(200);
    // The service's own 503 (its database away) says 2 s to every worker: they come back spread over a second.
    const draws = Array.from({ length: 2000 }, () => claimRetryDelay(answered(503, 2000), 3));
    expect(new Set(draws.map((d) => Math.floor((d - 2000) / 250))).size).toBe(4);
  });
});
