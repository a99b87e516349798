/**
 * Parses an HTTP Retry-After header (seconds or an HTTP date) into a time; null when absent, unreadable
 * or beyond what a Date can hold (a huge number of seconds would otherwise become an Invalid Date, whose
 * toISOString throws).
 */
export function parseRetryAfter(value: string | null, now = Date.now()): Date | null {
  if (!value) return null;
  const trimmed = value.trim();
  const at = /^\d+$/.test(trimmed) ? now + Number(trimmed) * 1000 : Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  const when = new Date(Math.max(at, now));
  return Number.isNaN(when.getTime()) ? null : when;
}
