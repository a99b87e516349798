import { randomFillSync } from 'node:crypto';

/**
 * Job ids, made in the process that submits the job: UUID version 7 (RFC 9562), 48 bits of Unix
 * milliseconds, a 12-bit counter, then 62 random bits.
 *
 * Why here and not by the column default (`conveyor_uuid_v7()`, which stays for rows inserted by hand):
 * the SQL function costs PostgreSQL a random draw, a clock read and byte surgery per row, a real share of a bulk
 * insert (docs/performance.md); and a submitter that knows its ids up front
 * matches inserted rows to requests by id instead of asking PostgreSQL to send back what it was given.
 *
 * The counter (RFC 9562 "method 1") makes ids from one process strictly increasing even within a
 * millisecond, so a batch's ids are in request order; when it runs over, the timestamp moves on by one
 * millisecond, as the RFC allows. Ids from different processes interleave by their clocks; that order
 * is what the job list pages by (newest first) and what keeps index writes local.
 */
export function newJobId(): string {
  let now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > MAX_COUNTER) {
    lastMs += 1;
    counter = 0;
  }
  now = lastMs;
  if (randomAt + 8 > RANDOM.length) {
    randomFillSync(RANDOM);
    randomAt = 0;
  }
  const r = RANDOM;
  const i = randomAt;
  randomAt += 8;
  if (now !== prefixMs) {
    // 48-bit millisecond timestamp: 12 hex digits, formatted once per millisecond.
    const ms = hex(Math.floor(now / 2 ** 24), 6) + hex(now % 2 ** 24, 6);
    prefix = `${ms.slice(0, 8)}-${ms.slice(8)}-7`;
    prefixMs = now;
  }
  return (
    `${prefix}${COUNTER_HEX[counter]}-` +
    // Variant bits 10, then 62 random bits.
    `${HEX[(r[i] & 0x3f) | 0x80]}${HEX[r[i + 1]]}-${HEX[r[i + 2]]}${HEX[r[i + 3]]}${HEX[r[i + 4]]}${HEX[r[i + 5]]}${HEX[r[i + 6]]}${HEX[r[i + 7]]}`
  );
}

/** Whether `text` is a job id as the API accepts one: any UUID, in either case (PostgreSQL's uuid input). */
export function isJobId(text: string): boolean {
  return UUID.test(text);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const MAX_COUNTER = 0xfff;
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
/** The counter's three hex digits, for every value it takes. */
const COUNTER_HEX = Array.from({ length: MAX_COUNTER + 1 }, (_, n) => n.toString(16).padStart(3, '0'));
/** Random bytes drawn 4 kB at a time: one getrandom call per 512 ids instead of one per id. */
const RANDOM = Buffer.alloc(4096);
let randomAt = RANDOM.length;
let lastMs = 0;
let counter = 0;
/** The id's first 15 characters (timestamp and version digit) for `prefixMs`. */
let prefix = '';
let prefixMs = -1;

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, '0');
}
