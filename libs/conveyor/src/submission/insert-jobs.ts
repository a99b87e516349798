import { MESSAGES } from '../errors/conveyor.messages';
import { SqlRunner } from '../storage/connections/sql-runner.interface';
import { IdempotencyConflictError, JobStateConflictError } from '../errors/job-request.errors';
import { jobGetByIdempotencyKeys, jobGetByUniqueKeys, NewJobRow, run, SqlTables } from '../storage/statements';
import { CommittedInsert, insertRowsApart, insertRowsTogether } from './insert-rows';
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
  /** A quiet first statement (storage/statements/quiet-insert.ts): only for a runner whose statements commit on their own. */
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

/**
 * {@link insertJobs} for rows cut into several statements (rowsPerStatement), sent one after another on
 * `runner`, whose transaction makes them all or nothing. A key repeated in a later statement is answered as within
 * one: that row finds the job an earlier statement created, visible in the same transaction.
 */
export async function insertJobsInTurn(runner: SqlRunner, t: SqlTables, statements: NewJobRow[][]): Promise<InsertedJobs> {
  let answers: JobRow[] = [];
  let created: JobRow[] = [];
  let committed: CommittedInsert[] = [];
  for (const rows of statements) {
    const done = await insertJobs(runner, t, rows);
    answers = answers.concat(done.answers);
    created = created.concat(done.created);
    committed = committed.concat(done.committed);
  }
  return { answers, created, committed };
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
    const done = independent
      ? await insertRowsApart(runner, independent.retryOn, t, batch, quiet)
      : await insertRowsTogether(runner, t, batch, quiet);
    const { rows: inserted, failed } = done;
    created.push(...inserted.values());
    committed.push(...done.committed);
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
