/**
 * A calendar date, or a date and time with its offset: the part of ISO 8601 that Date reads the same on every
 * server (a time without offset would be read in the server's own time zone).
 */
const RUN_AT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/**
 * The instants PostgreSQL and Date write the same way (years 0001 to 9999 in UTC). A time at either end of the
 * calendar with an offset can fall outside it: `toISOString` writes year 10000 as `+010000-…` and the year before
 * 0001 as `0000-…`, and PostgreSQL refuses both.
 */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
export const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** What a submission is told when its `runAt` is not one. */
export const RUN_AT_PROBLEM = 'must be a date or a date-time with offset, such as 2030-01-01T12:00:00Z';

/**
 * Whether `text` names one real instant that Date and PostgreSQL both read as written. Date alone is not
 * enough: it rolls 2030-02-30 over to 2 March and reads year 0000 and 24:00, which PostgreSQL refuses or reads
 * differently; every field is therefore checked against the calendar, years 0001 to 9999, and the instant too
 * (an offset can carry 9999-12-31T23:00-02:00 into year 10000 in UTC).
 */
export function isRunAtText(text: string): boolean {
  const m = RUN_AT.exec(text);
  if (!m) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = m
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  return (
    year! >= 1 &&
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysIn(year!, month!) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 15 &&
    offsetMinutes <= 59 &&
    isWritableInstant(Date.parse(text))
  );
}

function isWritableInstant(ms: number): boolean {
  return ms >= FIRST_INSTANT && ms <= LAST_INSTANT;
}

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}
