import { SqlResult, SqlRunner } from '../database/sql-runner.interface';

/** One parameterised statement. `name` (set on hot-path statements) lets pg prepare it once per connection. */
export interface Statement {
  name?: string;
  text: string;
  values: unknown[];
}

/** Escaped table names a statement is built against, plus a key that keeps prepared-statement names unique. */
export interface SqlTables {
  /** Escaped schema name, for the schema's functions. */
  schema: string;
  jobs: string;
  queues: string;
  key: string;
}

/** Runs a statement on a runner (pool or a caller's transaction). */
export function run<R = Record<string, unknown>>(runner: SqlRunner, stmt: Statement): Promise<SqlResult<R>> {
  return runner.query<R>(stmt.text, stmt.values, stmt.name);
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
 * Columns a claim returns: what varies per job. The error history and result stay in the database,
 * since a job that failed many times would otherwise ship its whole history on every claim; what the
 * claim itself just set (status, worker, lease, the timestamps that all equal the statement's `now()`)
 * is filled in by `mapClaimedJobRow` from `started_at` — PostgreSQL formatting four more timestamps per
 * row, and Node parsing them, was a measurable share of a claim.
 */
export function CLAIMED_JOB_COLUMNS(alias: string): string {
  return ['id', 'seq', 'queue', 'type', 'payload', 'priority', 'run_at', 'attempts', 'max_attempts', 'snoozes', 'last_error',
    'idempotency_key', 'unique_key', 'lease_token', 'version', 'created_at', 'started_at']
    .map((c) => `${alias}.${c}`)
    .join(', ');
}
