import { MAX_RETRY_AFTER_MS, parseRetryAfter } from './retry-after';

describe('parseRetryAfter', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter(' 120 ', now)?.toISOString()).toBe('2030-01-01T00:02:00.000Z');
  });

  it('reads an HTTP date, and never answers a time in the past', () => {
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:30 GMT', now)?.toISOString()).toBe('2030-01-01T00:00:30.000Z');
    expect(parseRetryAfter('Sat, 01 Jan 2000 00:00:00 GMT', now)?.getTime()).toBe(now);
  });

  it('answers null for a missing or unreadable value', () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('', now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });

  it('puts a job off by at most a day, however far the receiver asks', () => {
    const latest = now + MAX_RETRY_AFTER_MS;
    expect(MAX_RETRY_AFTER_MS).toBe(86_400_000);
    expect(parseRetryAfter(String(MAX_RETRY_AFTER_MS / 1000), now)?.getTime()).toBe(latest);
    expect(parseRetryAfter('31536000', now)?.getTime()).toBe(latest);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', now)?.getTime()).toBe(latest);
    expect(parseRetryAfter('9'.repeat(20), now)?.getTime()).toBe(latest);
  });
});
