import { QueryOptions, SqlResult, SqlRunner } from '../connections/sql-runner.interface';
import { SqlTables } from '../connections/sql-tables';

export type { SqlTables };

/**
 * One parameterised statement and how it is sent: `name` (set on hot-path statements) lets pg prepare it once
 * per connection, `rowMode: 'array'` returns each row as an array of its columns, `deadlineMs` is set on
 * statements whose work grows with the table (LONG_STATEMENT_DEADLINE_MS).
 */
export interface Statement extends QueryOptions {
  text: string;
  values: unknown[];
}

/** Runs a statement on a runner (pool or a caller's transaction). */
export function run<R = Record<string, unknown>>(runner: SqlRunner, stmt: Statement): Promise<SqlResult<R>> {
  return runner.query<R>(stmt.text, stmt.values, stmt);
}

/** The claimable states as an SQL list, kept in one place. */
export const CLAIMABLE_SQL = `('SCHEDULED','PENDING','RETRYING')`;

/** Columns every job-returning statement gives back. */
export const JOB_COLUMNS = `id, seq, queue, type, payload, status, priority, run_at, attempts, max_attempts, snoozes,
  last_error, result, errors, idempotency_key, unique_key, locked_by, locked_until, lease_token, version,
  created_at, updated_at, started_at, finished_at`;

/** `JOB_COLUMNS` prefixed with a table alias. */
export function jobColumns(alias: string): string {
  return JOB_COLUMNS.split(',')
    .map((c) => `${alias}.${c.trim()}`)
    .join(', ');
}

/**
 * Columns a claim returns, each with its place in the row: what varies per job. The error history and result
 * stay in the database, since a job that failed many times would otherwise ship its whole history on every
 * claim; what the claim itself just set (status, worker, lease token, the timestamps that all equal the
 * statement's `now()`) is filled in by `mapClaimedJobRow` from the claim's `ClaimStamp` and `started_at` —
 * PostgreSQL formatting four more timestamps per row, and Node parsing them, was a measurable share of a claim.
 *
 * Claims come back as arrays (`rowMode: 'array'`), read by these positions: pg then skips building an object
 * per row (a copy of a 16-key template and a keyed store per column), which was the largest single cost of a
 * claim on the Node side.
 *
 * The numbers and timestamps travel as one text column, `counters` (see CLAIMED_COUNTERS): pg decodes every
 * column of every row into a string with a call into Node's C++ (`utf8Slice`) before any type parser runs, and
 * with sixteen columns that per-column cost was the largest part of reading a claim. Splitting one string in
 * JavaScript is cheaper: measured on 100-row answers, 5.8-7.8 -> 3.7-5.0 µs of Node CPU per row, for 0.13-0.17
 * µs more of PostgreSQL's (it formats the same values, then joins them).
 */
export const CLAIMED_COLUMN = {
  id: 0,
  queue: 1,
  type: 2,
  payload: 3,
  counters: 4,
  last_error: 5,
  idempotency_key: 6,
  unique_key: 7,
  created_at: 8,
} as const;

/**
 * What the `counters` column joins, in order, with commas: columns that are never null (`concat_ws` would drop a
 * null and shift the rest) and whose text never holds a comma — integers and timestamps in PostgreSQL's ISO form.
 */
export const CLAIMED_COUNTERS = ['seq', 'priority', 'attempts', 'max_attempts', 'snoozes', 'version', 'run_at', 'started_at'] as const;

/** Where each counter is in the split `counters` text. */
export const COUNTER = Object.fromEntries(CLAIMED_COUNTERS.map((name, i) => [name, i])) as {
  readonly [K in (typeof CLAIMED_COUNTERS)[number]]: number;
};

/** How many columns `CLAIMED_JOB_COLUMNS` gives; a statement's own extra columns follow them. */
export const CLAIMED_COLUMN_COUNT = Object.keys(CLAIMED_COLUMN).length;

/** A claimed job's row, as an array in `CLAIMED_COLUMN` order. */
export type ClaimedJobRow = unknown[];

/**
 * The `CLAIMED_COLUMN`s in their order, read from table alias `alias`. `created_at` comes back null when it
 * equals `run_at`, as it does for every job submitted to run at once: PostgreSQL then formats one timestamp
 * fewer per row (its timestamptz output is one of the dearer steps of a claim) and Node decodes one fewer.
 */
export function CLAIMED_JOB_COLUMNS(alias: string): string {
  return Object.keys(CLAIMED_COLUMN)
    .map((c) => {
      if (c === 'counters') return `concat_ws(',', ${CLAIMED_COUNTERS.map((n) => `${alias}.${n}`).join(', ')}) AS counters`;
      if (c === 'created_at') return `NULLIF(${alias}.created_at, ${alias}.run_at) AS created_at`;
      return `${alias}.${c}`;
    })
    .join(', ');
}
