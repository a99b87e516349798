import { types } from 'pg';

/** PostgreSQL's type OID of `timestamptz`. */
const TIMESTAMPTZ_OID = 1184;
/** PostgreSQL's type OID of `bigint`. */
const INT8_OID = 20;

/**
 * Type parsers for the engine's own statements: pg's defaults, except none for `bigint` (pg's returns the
 * text it was given) and a hand-written parser for `timestamptz`. A claimed job carries several
 * timestamps, and pg's general parser (a regular expression per value) was the largest single cost of a
 * claim on the Node side. This one reads the fixed ISO layout PostgreSQL sends (`2026-11-23
 * 14:10:00.123456+00`, any whole-hour, minute or second offset) digit by digit and hands everything else
 * (BC dates, infinity, years before 1000) to pg's parser, so the result is always the same Date.
 */
export const ENGINE_TYPE_PARSERS = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): unknown {
    if (oid === TIMESTAMPTZ_OID && format !== 'binary') return parseTimestamptz;
    // pg's parser tests each bigint's text with a regular expression, then returns that same text either way.
    if (oid === INT8_OID && format !== 'binary') return keepText;
    return (types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  },
};

const fallback = types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date;

function keepText(text: string): string {
  return text;
}

/**
 * The last two distinct texts parsed and their instants. Rows of one statement mostly repeat their
 * timestamps: a claim's `started_at` is one `now()` for every row, and a batch of jobs enqueued together
 * shares its `run_at` and `created_at`. Two entries, because a claimed row alternates between those two
 * values; each hit still returns a new Date, as callers may change theirs.
 */
const recentTexts: [string, string] = ['', ''];
const recentTimes: [number, number] = [NaN, NaN];
let nextSlot = 0;

/** Parses PostgreSQL's text form of a timestamptz; identical to pg's parser, without its general regular expression. */
export function parseTimestamptz(text: string): Date {
  if (text === recentTexts[0]) return new Date(recentTimes[0]);
  if (text === recentTexts[1]) return new Date(recentTimes[1]);
  const parsed = readTimestamptz(text);
  // Only the common layout is remembered: pg's parser answers infinity with a number, not a Date.
  if (parsed instanceof Date) {
    recentTexts[nextSlot] = text;
    recentTimes[nextSlot] = parsed.getTime();
    nextSlot ^= 1;
  }
  return parsed;
}

function readTimestamptz(text: string): Date {
  const n = text.length;
  if (n < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(10) !== 32) return fallback(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  if (year < 1000 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return fallback(text);
  let i = 19;
  let ms = 0;
  if (text.charCodeAt(i) === 46) {
    let scale = 100;
    for (i++; i < n; i++) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      ms += d * scale;
      scale /= 10;
    }
    ms = Math.trunc(ms);
  }
  const sign = text.charCodeAt(i) === 43 ? 1 : text.charCodeAt(i) === 45 ? -1 : 0;
  if (sign === 0) return fallback(text);
  let offsetSeconds = 0;
  let unit = 3600;
  for (i++; unit >= 1; unit /= 60) {
    const part = digits(text, i, i + 2);
    if (part < 0) return fallback(text);
    offsetSeconds += part * unit;
    i += 2;
    if (i === n) break;
    if (text.charCodeAt(i) !== 58) return fallback(text);
    i++;
  }
  if (i !== n) return fallback(text);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - sign * offsetSeconds * 1000);
}

/**
 * A timestamptz as PostgreSQL's text gives it (ISO, as `parseTimestamptz` reads it), in µs since the epoch, as
 * decimal text: what `epochMicrosSql` gives in SQL for the same value, exactly, where a Date would keep milliseconds
 * only. Live events carry job times in this form.
 */
export function epochMicros(text: string): string {
  const ms = parseTimestamptz(text).getTime();
  const dot = text.indexOf('.', 19);
  let micros = 0;
  if (dot === 19) {
    let scale = 100_000;
    for (let i = 20; i < text.length && scale >= 1; i++, scale /= 10) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      micros += d * scale;
    }
  }
  // The whole second the Date holds, then the fraction the text has (floor: correct before 1970 too).
  return String(Math.floor(ms / 1000) * 1_000_000 + micros);
}

/** The decimal number in text[from, to), or -1 when any character is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}
