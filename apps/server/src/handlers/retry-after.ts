/**
 * Latest a Retry-After may put a job off: one day. The header is the receiver's word, and a job waiting
 * on it uses no attempt, so a year's Retry-After (a bug, or a hostile endpoint) would otherwise park
 * the job out of sight for that year; a receiver still busy after a day can say so again.
 */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * Parses an HTTP Retry-After header (seconds or an HTTP date) into a time, never in the past and at most
 * {@link MAX_RETRY_AFTER_MS} ahead; null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): Date | null {
  if (!value) return null;
  const trimmed = value.trim();
  const at = /^\d+$/.test(trimmed) ? now + Number(trimmed) * 1000 : Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return new Date(Math.min(Math.max(at, now), now + MAX_RETRY_AFTER_MS));
}
