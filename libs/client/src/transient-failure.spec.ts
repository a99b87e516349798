import { ConveyorHttpError } from './conveyor-http.error';
import { isTransientFailure, retryDelayOf } from './transient-failure';

const answered = (status: number, retryAfterMs: number | null = null) =>
  new ConveyorHttpError(status, null, 'GET', '/jobs/x', retryAfterMs);

describe('isTransientFailure', () => {
  it('tries again after no answer, a 5xx or a 429', () => {
    expect([new TypeError('fetch failed'), answered(500), answered(502), answered(503), answered(429)].map(isTransientFailure)).toEqual(
      Array(5).fill(true),
    );
  });

  it("takes any other answer as the server's word", () => {
    expect([400, 401, 403, 404, 409, 413].map((status) => isTransientFailure(answered(status)))).toEqual(Array(6).fill(false));
  });
});

describe('retryDelayOf', () => {
  it("waits the server's Retry-After when it sent one, else the fallback", () => {
    expect(retryDelayOf(answered(503, 2000), 100)).toBe(2000);
    expect(retryDelayOf(answered(503), 100)).toBe(100);
    expect(retryDelayOf(new TypeError('fetch failed'), 100)).toBe(100);
  });
});
