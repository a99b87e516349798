/** Parses an HTTP Retry-After header (seconds or an HTTP date) into a time; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): Date | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return new Date(now + Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : new Date(Math.max(at, now));
}
