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

/**
 * A timestamptz expression in µs since the epoch, as text: the form job times take in live items and event ids, and
 * the one `epochMicros` reads from a timestamp's text.
 */
export function epochMicrosSql(timestamp: string): string {
  return `(extract(epoch FROM ${timestamp}) * 1000000)::bigint::text`;
}

/** The database's clock at this moment (`clock_timestamp()`), in ms since the epoch with its fraction: for DatabaseClock. */
export const CLOCK_MS_SQL = `(extract(epoch FROM clock_timestamp()) * 1000)::float8`;

/** The claimable states as an SQL list, kept in one place. */
export const CLAIMABLE_SQL = `('SCHEDULED','PENDING','RETRYING')`;

/** Columns every job-returning statement gives back. */
export const JOB_COLUMNS = `id, seq, queue, type, payload, status, priority, run_at, attempts, max_attempts, snoozes,
  last_error, result, errors, idempotency_key, unique_key, locked_by, locked_until, lease_token, version,
  created_at, updated_at, started_at, finished_at, progress`;

/** `JOB_COLUMNS` prefixed with a table alias. */
export function jobColumns(alias: string): string {
  return JOB_COLUMNS.split(',')
    .map((c) => `${alias}.${c.trim()}`)
    .join(', ');
}
