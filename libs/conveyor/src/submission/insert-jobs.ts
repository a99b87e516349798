import { MESSAGES } from '../errors/conveyor.messages';
import { SqlResult, SqlRunner } from '../storage/connections/sql-runner.interface';
import { isConnectionError } from '../storage/connections/connection-errors';
import { DatabaseUnavailableError, IdempotencyConflictError, JobStateConflictError } from '../errors/job-request.errors';
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

/** A request row that no job answers: the error its request fails with (only with `InsertOptions.independent`). */
export class FailedRow {
  constructor(readonly error: unknown) {}
}

/** What {@link insertJobsEach} did: like {@link InsertedJobs}, but a row may fail on its own. */
export interface InsertedEach extends Omit<InsertedJobs, 'answers'> {
  /** In request order: the new job, the one holding the request's key, or why the request failed. */
  answers: Array<JobRow | FailedRow>;
}

/** How {@link insertJobsEach} inserts. */
export interface InsertOptions {
  /** A quiet first statement (sql/quiet-insert.ts): only for a runner whose statements commit on their own. */
  quiet?: boolean;
  /**
   * The rows are the submissions of unrelated requests, sharing statements: each row answers for itself. A key
   * conflict fails its row alone, and a statement that fails for a reason other than the connection is sent again
   * in halves on `retryOn` (which must commit each statement on its own), down to the rows that fail by
   * themselves. Without it the first failure is thrown.
   */
  independent?: { retryOn: SqlRunner };
}

/** Rounds before a key whose holders keep finishing is given up on (each round is one more insert). */
const MAX_ROUNDS = 5;

/**
 * Inserts validated rows with one statement and answers every request row; the first failure is thrown.
 *
 * A row without keys is always inserted. A keyed row the statement skipped is answered with the job that
 * holds its key: the job created under its idempotency key (which must come from the same request, else
 * 409), otherwise the waiting or running job holding its (type, unique key). Between the skipped insert
 * and that read the holder may have finished (a unique key is then free) or been deleted; such rows are
 * simply inserted again, so the answer is always a job that exists and a key is never left unserved.
 * Without conflicts this is exactly one statement; each kind of conflict adds one read.
 */
export async function insertJobs(runner: SqlRunner, t: SqlTables, rows: NewJobRow[], quiet = false): Promise<InsertedJobs> {
  const { answers, created, committed } = await insertJobsEach(runner, t, rows, { quiet });
  return { answers: answers as JobRow[], created, committed };
}

/** {@link insertJobs}, with the rows answering each for itself when `options.independent` says they are unrelated. */
export async function insertJobsEach(
  runner: SqlRunner,
  t: SqlTables,
  rows: NewJobRow[],
  options: InsertOptions = {},
): Promise<InsertedEach> {
  // Until its statement is on the runner, nothing here may wait: LocalPickup sends a claim right behind it.
  const { quiet = false, independent } = options;
  const answers = new Array<JobRow | FailedRow>(rows.length);
  const fail = (i: number, error: unknown) => {
    if (!independent) throw error;
    answers[i] = new FailedRow(error);
  };
  const created: JobRow[] = [];
  const committed: CommittedInsert[] = [];
  let pending = rows.map((_, i) => i);
  for (let round = 0; pending.length > 0; round++) {
    if (round === MAX_ROUNDS) {
      for (const i of pending) fail(i, contention(rows[i]));
      break;
    }
    const batch = pending.map((i) => rows[i]);
    const {
      rows: inserted,
      committed: statements,
      failed,
    } = independent
      ? await insertRowsApart(runner, independent.retryOn, t, batch, quiet)
      : await insertRowsTogether(runner, t, batch, quiet);
    created.push(...inserted.values());
    committed.push(...statements);
    const asked = failed.size === 0 ? batch : batch.filter((r) => !failed.has(r.id));
    // Every row inserted (always so without keys): nothing to look up.
    const holders =
      inserted.size === asked.length ? null : await keyHolders(runner, t, [...inserted.values()], asked).catch(failedRead(independent));
    const again: number[] = [];
    for (const i of pending) {
      const row = rows[i];
      const mine = inserted.get(row.id);
      if (mine) {
        answers[i] = mine;
        continue;
      }
      if (failed.has(row.id) || holders instanceof FailedRow) {
        fail(i, holders instanceof FailedRow ? holders.error : failed.get(row.id));
        continue;
      }
      const byIdempotency = row.idempotency_key ? holders!.byIdempotencyKey.get(row.idempotency_key) : undefined;
      if (byIdempotency && byIdempotency.idempotency_hash !== row.idempotency_hash) {
        fail(i, new IdempotencyConflictError(MESSAGES.idempotencyMismatch(row.idempotency_key!)));
        continue;
      }
      const stored = byIdempotency ?? (row.unique_key ? holders!.byUniqueKey.get(uniqueId(row.type, row.unique_key)) : undefined);
      if (stored) answers[i] = stored;
      else again.push(i);
    }
    pending = again;
  }
  return { answers, created, committed };
}

/** A failed read of key holders: thrown, or (for independent rows) the failure of the rows that needed it. */
function failedRead(independent: unknown): (err: unknown) => FailedRow {
  return (err) => {
    if (!independent) throw err;
    return new FailedRow(err);
  };
}

function contention(row: NewJobRow): JobStateConflictError {
  return new JobStateConflictError(MESSAGES.uniqueKeyContention(row.idempotency_key ?? row.unique_key ?? ''));
}

/** What the insert statements of one round did: rows inserted by id, the statements that committed, rows that failed. */
interface RoundInsert {
  rows: Map<string, JobRow>;
  committed: CommittedInsert[];
  /** The error of each row no statement could insert, by id. */
  failed: Map<string, unknown>;
}

const NO_FAILURES: ReadonlyMap<string, unknown> = new Map();

async function insertRowsTogether(runner: SqlRunner, t: SqlTables, rows: NewJobRow[], quiet: boolean): Promise<RoundInsert> {
  const { rows: inserted, committed } = await insertRows(runner, t, rows, quiet);
  return { rows: inserted, committed: committed ? [committed] : [], failed: NO_FAILURES as Map<string, unknown> };
}

/**
 * Inserts `rows` with one statement; when it fails for a reason a smaller statement could avoid (one row's value,
 * a deadlock), the halves go again one after the other on `retryOn`, so only the rows that fail by themselves
 * fail. A failed statement inserted nothing: a statement is atomic. Never split: a connection failure (the
 * statement may have committed unseen, and sending its rows again could insert them twice; every row gets the
 * 503) and an error of the statement itself (class 42: it would fail the same way for every half).
 *
 * The halves go in turn, not side by side: two statements carrying the same keys in different orders could each
 * wait for the other's uncommitted row. The retries are announced inserts (not quiet): the claim that a quiet
 * insert sends behind it has gone already, behind the failed statement.
 */
async function insertRowsApart(
  runner: SqlRunner,
  retryOn: SqlRunner,
  t: SqlTables,
  rows: NewJobRow[],
  quiet: boolean,
): Promise<RoundInsert> {
  try {
    return await insertRowsTogether(runner, t, rows, quiet);
  } catch (err) {
    if (rows.length === 1 || !isSplittable(err)) return { rows: new Map(), committed: [], failed: new Map(rows.map((r) => [r.id, err])) };
    const half = Math.ceil(rows.length / 2);
    const first = await insertRowsApart(retryOn, retryOn, t, rows.slice(0, half), false);
    const second = await insertRowsApart(retryOn, retryOn, t, rows.slice(half), false);
    return {
      rows: new Map([...first.rows, ...second.rows]),
      committed: [...first.committed, ...second.committed],
      failed: new Map([...first.failed, ...second.failed]),
    };
  }
}

/** Whether a failed multi-row statement may succeed for some of its rows if sent in parts. */
function isSplittable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError || isConnectionError(err)) return false;
  const code = (err as { code?: unknown } | null)?.code;
  return !(typeof code === 'string' && code.startsWith('42'));
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
