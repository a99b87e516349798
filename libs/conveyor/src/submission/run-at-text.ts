/**
 * A calendar date, or a date and time with its offset: the part of ISO 8601 that Date reads the same on every
 * server (a time without offset would be read in the server's own time zone).
 */
const RUN_AT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/** What a submission is told when its `runAt` is not one. */
export const RUN_AT_PROBLEM = 'must be a date or a date-time with offset, such as 2030-01-01T12:00:00Z';

/**
 * Whether `text` names one real instant that Date and PostgreSQL both read as written. Date alone is not
 * enough: it rolls 2030-02-30 over to 2 March and reads year 0000 and 24:00, which PostgreSQL refuses or reads
 * differently; every field is therefore checked against the calendar, years 0001 to 9999.
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
    offsetMinutes <= 59
  );
}

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}
