import { NewJobRow, payloadJson } from '../storage/statements';
import { countWithin } from './submission-batcher';

/**
 * Most payload text (UTF-16 code units, as JSON) one insert statement carries: a statement's rows travel as one
 * string, which Node builds whole and PostgreSQL parses in one piece, so rows beyond it go in a statement of their
 * own rather than growing one string to the sum of every payload (a V8 string ends at ~512 MiB, a PostgreSQL
 * parameter at 1 GiB). A single larger row still goes, alone.
 */
export const MAX_STATEMENT_PAYLOAD_CHARS = 16 * 1024 * 1024;

/**
 * Payload text (UTF-16 code units, as JSON) past which a submission is inserted in a lane of its own (SharedInsertService),
 * beside the group of smaller submissions in flight rather than in turn with them: storing it takes the database long
 * enough (seconds for tens of MB) that the submissions arriving meanwhile would otherwise wait for it. For the same
 * reason, rows carrying more than this in all are never inserted on the worker connection (LocalPickup).
 */
export const SOLO_PAYLOAD_CHARS = 1024 * 1024;

/** How much of MAX_STATEMENT_PAYLOAD_CHARS a row takes: its payload's JSON text, made once (payloadJson). */
export function payloadChars(row: NewJobRow): number {
  return payloadJson(row)?.length ?? 0;
}

/** Rows cut, in order, into statements of at most `maxRows` rows and MAX_STATEMENT_PAYLOAD_CHARS of payload each. */
export function rowsPerStatement(rows: NewJobRow[], maxRows: number): NewJobRow[][] {
  const statements: NewJobRow[][] = [];
  for (let from = 0; from < rows.length;) {
    const n = countWithin(Math.min(maxRows, rows.length - from), (i) => payloadChars(rows[from + i]), MAX_STATEMENT_PAYLOAD_CHARS);
    statements.push(rows.slice(from, from + n));
    from += n;
  }
  return statements;
}
