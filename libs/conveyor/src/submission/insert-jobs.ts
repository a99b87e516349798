import { MESSAGES } from '../errors/conveyor.messages';
import { SqlResult, SqlRunner } from '../storage/connections/sql-runner.interface';
import { IdempotencyConflictError, JobStateConflictError } from '../errors/job-request.errors';
import {
  hasKeys,
  InsertedBatch,
  InsertedJobColumns,
  jobGetByIdempotencyKeys,
  jobGetByUniqueKeys,
  jobInsertBatch,
  jobInsertMany,
  NewJobRow,
  run,
  SqlTables,
  storedJobRow,
  unpackInsertedBatch,
} from '../storage/statements';
import { JobRow } from '../storage/statements/job-row.mapper';

/** What {@link insertJobs} did: the stored row answering each request row, and the rows it created. */
export interface InsertedJobs {
  /** In request order: the new job, or the one holding the request's idempotency or unique key. */
  answers: JobRow[];
  /** Rows this call inserted, in insertion order. */
  created: JobRow[];
  /** The insert statements that committed on their own (the engine's pool), one per statement that created jobs. */
  committed: CommittedInsert[];
}

/** An insert that committed on its own: the backend that ran it (its NOTIFY's sender) and its earliest run_at. */
export interface CommittedInsert {
  backendPid: number;
  /** Epoch ms, as PostgreSQL stored it (to the millisecond, truncated). */
  earliestRunAt: number;
}

/** What one insert statement did. */
export interface InsertedRows {
  /** The stored rows of those inserted, by id, in insertion order. */
  rows: Map<string, JobRow>;
  /** Set when the statement committed on its own and inserted at least one row. */
  committed?: CommittedInsert;
}

/** Rounds before a key whose holders keep finishing is given up on (each round is one more insert). */
const MAX_ROUNDS = 5;

/**
 * Inserts validated rows with one statement and answers every request row.
 *
 * A row without keys is always inserted. A keyed row the statement skipped is answered with the job that
 * holds its key: the job created under its idempotency key (which must come from the same request, else
 * 409), otherwise the waiting or running job holding its (type, unique key). Between the skipped insert
 * and that read the holder may have finished (a unique key is then free) or been deleted; such rows are
 * simply inserted again, so the answer is always a job that exists and a key is never left unserved.
 * Without conflicts this is exactly one statement; each kind of conflict adds one read.
 */
export async function insertJobs(runner: SqlRunner, t: SqlTables, rows: NewJobRow[], quiet = false): Promise<InsertedJobs> {
  // Until its statement is on the runner, nothing here may wait: LocalPickup sends a claim right behind it.
  const answers: JobRow[] = new Array<JobRow>(rows.length);
  const created: JobRow[] = [];
  const committed: CommittedInsert[] = [];
  let pending = rows.map((_, i) => i);
  for (let round = 0; pending.length > 0; round++) {
    if (round === MAX_ROUNDS) {
      const row = rows[pending[0]];
      throw new JobStateConflictError(MESSAGES.uniqueKeyContention(row.idempotency_key ?? row.unique_key ?? ''));
    }
    const batch = pending.map((i) => rows[i]);
    const { rows: inserted, committed: statement } = await insertRows(runner, t, batch, quiet);
    created.push(...inserted.values());
    if (statement) committed.push(statement);
    // Every row inserted (always so without keys): nothing to look up.
    const holders = inserted.size === batch.length ? null : await keyHolders(runner, t, [...inserted.values()], batch);
    const again: number[] = [];
    for (const i of pending) {
      const row = rows[i];
      const mine = inserted.get(row.id);
      if (mine) {
        answers[i] = mine;
        continue;
      }
      const byIdempotency = row.idempotency_key ? holders!.byIdempotencyKey.get(row.idempotency_key) : undefined;
      if (byIdempotency && byIdempotency.idempotency_hash !== row.idempotency_hash) {
        throw new IdempotencyConflictError(MESSAGES.idempotencyMismatch(row.idempotency_key!));
      }
      const stored = byIdempotency ?? (row.unique_key ? holders!.byUniqueKey.get(uniqueId(row.type, row.unique_key)) : undefined);
      if (stored) answers[i] = stored;
      else again.push(i);
    }
    pending = again;
  }
  return { answers, created, committed };
}

/**
 * Inserts `rows` with one statement: the stored rows of those inserted, and whether it committed on its own.
 * `quiet` (only for a runner whose statements commit on their own) makes it a quiet insert: sql/quiet-insert.ts.
 */
export async function insertRows(runner: SqlRunner, t: SqlTables, rows: NewJobRow[], quiet = false): Promise<InsertedRows> {
  const { columns, committedOn } = await insertStatement(runner, t, rows, quiet);
  const inserted = new Map<string, JobRow>();
  let earliestRunAt = Infinity;
  for (let i = 0; i < rows.length; i++) {
    const c = columns[i];
    if (!c) continue;
    inserted.set(c.id, storedJobRow(rows[i], c));
    earliestRunAt = Math.min(earliestRunAt, c.run_at.getTime());
  }
  const committed = committedOn !== undefined && inserted.size > 0 ? { backendPid: committedOn, earliestRunAt } : undefined;
  return { rows: inserted, committed };
}

/** What one insert statement sent back: `columns[i]` for `rows[i]`, undefined for a row it skipped. */
interface InsertAnswer extends Pick<SqlResult<unknown>, 'committedOn'> {
  columns: Array<InsertedJobColumns | undefined>;
}

/** Runs the insert that suits `rows`: a keyless batch answers with one row, anything else with a row per job. */
async function insertStatement(runner: SqlRunner, t: SqlTables, rows: NewJobRow[], quiet: boolean): Promise<InsertAnswer> {
  if (rows.length > 1 && !rows.some(hasKeys)) {
    const result = await run<InsertedBatch>(runner, jobInsertBatch(t, rows, quiet));
    return { columns: unpackInsertedBatch(rows, result.rows[0]), committedOn: result.committedOn };
  }
  // Rows with keys may be skipped, and RETURNING keeps no order: matched to the request by id.
  const result = await run<InsertedJobColumns>(runner, jobInsertMany(t, rows, quiet));
  const byId = new Map<string, InsertedJobColumns>();
  for (const c of result.rows) byId.set(c.id, c);
  return { columns: rows.map((r) => byId.get(r.id)), committedOn: result.committedOn };
}

/** The jobs holding the keys of `rows`: those just inserted first, then (one read per kind) the existing ones. */
async function keyHolders(runner: SqlRunner, t: SqlTables, inserted: JobRow[], rows: NewJobRow[]) {
  const byIdempotencyKey = new Map<string, JobRow>();
  const byUniqueKey = new Map<string, JobRow>();
  for (const r of inserted) {
    if (r.idempotency_key) byIdempotencyKey.set(r.idempotency_key as string, r);
    if (r.unique_key) byUniqueKey.set(uniqueId(r.type as string, r.unique_key as string), r);
  }
  const idempotencyKeys = [...new Set(rows.map((r) => r.idempotency_key).filter((k): k is string => !!k && !byIdempotencyKey.has(k)))];
  if (idempotencyKeys.length > 0) {
    for (const r of (await run<JobRow>(runner, jobGetByIdempotencyKeys(t, idempotencyKeys))).rows) {
      byIdempotencyKey.set(r.idempotency_key as string, r);
    }
  }
  // Only rows not answered by their idempotency key need their unique key's holder.
  const pairs = new Map<string, { type: string; key: string }>();
  for (const r of rows) {
    if (!r.unique_key || (r.idempotency_key && byIdempotencyKey.has(r.idempotency_key))) continue;
    const id = uniqueId(r.type, r.unique_key);
    if (!byUniqueKey.has(id)) pairs.set(id, { type: r.type, key: r.unique_key });
  }
  if (pairs.size > 0) {
    for (const r of (await run<JobRow>(runner, jobGetByUniqueKeys(t, [...pairs.values()]))).rows) {
      byUniqueKey.set(uniqueId(r.type as string, r.unique_key as string), r);
    }
  }
  return { byIdempotencyKey, byUniqueKey };
}

function uniqueId(type: string, key: string): string {
  return `${type}\u0000${key}`;
}
