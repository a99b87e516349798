import { SqlResult, SqlRunner } from '../storage/connections/sql-runner.interface';
import { isConnectionError } from '../storage/connections/connection-errors';
import { DatabaseUnavailableError } from '../errors/job-request.errors';
import {
  hasKeys,
  InsertedBatch,
  InsertedJobColumns,
  jobInsertBatch,
  jobInsertMany,
  NewJobRow,
  run,
  SqlTables,
  storedJobRow,
  unpackInsertedBatch,
} from '../storage/statements';
import { JobRow } from '../storage/statements/job-row.mapper';
import { JobStatus } from '../job/job-status';
import { MAX_ANNOUNCED_DUE_TIMES } from '../storage/statements/due-notice.codec';

/*
 * One insert statement (insertRows), and the statements of one round of insertJobsEach: the rows together
 * (insertRowsTogether), or, for the rows of unrelated requests, with a failed statement sent again in halves
 * (insertRowsApart).
 */

/**
 * An insert that committed on its own: the backend that ran it (its NOTIFY's sender), its earliest run_at, and the
 * later due times of its scheduled rows.
 */
export interface CommittedInsert {
  backendPid: number;
  /** Epoch ms, as PostgreSQL stored it (to the millisecond, truncated). */
  earliestRunAt: number;
  /** The earliest row was due when the insert ran (PENDING): it is due once the insert commits. */
  dueAtInsert: boolean;
  /**
   * The run_at of its other scheduled rows, epoch ms truncated, ascending, each once: the earliest
   * MAX_ANNOUNCED_DUE_TIMES, as its NOTIFY announces them.
   */
  laterRunAts: number[];
}

/**
 * The insert of a transaction of its own, once committed: the backend that ran it and the earliest run_at of the
 * rows it created (none when it created none).
 */
export function committedTransaction(backendPid: number, created: readonly JobRow[]): CommittedInsert[] {
  const committed = committedInsert(backendPid, created);
  return committed ? [committed] : [];
}

/** What a committed insert of `rows` tells the local pickup; undefined when it inserted none. */
export function committedInsert(backendPid: number, rows: Iterable<JobRow>): CommittedInsert | undefined {
  let earliest: JobRow | undefined;
  const scheduled = new Set<number>();
  for (const row of rows) {
    if (!earliest || (row.run_at as Date) < (earliest.run_at as Date)) earliest = row;
    if (row.status === JobStatus.SCHEDULED) scheduled.add((row.run_at as Date).getTime());
  }
  if (!earliest) return undefined;
  const earliestRunAt = (earliest.run_at as Date).getTime();
  scheduled.delete(earliestRunAt);
  const laterRunAts = [...scheduled].sort((a, b) => a - b).slice(0, MAX_ANNOUNCED_DUE_TIMES);
  return { backendPid, earliestRunAt, dueAtInsert: earliest.status === JobStatus.PENDING, laterRunAts };
}

/** What one insert statement did. */
export interface InsertedRows {
  /** The stored rows of those inserted, by id, in insertion order. */
  rows: Map<string, JobRow>;
  /** Set when the statement committed on its own and inserted at least one row. */
  committed?: CommittedInsert;
}

/** What the insert statements of one round did: rows inserted by id, the statements that committed, rows that failed. */
export interface RoundInsert {
  rows: Map<string, JobRow>;
  committed: CommittedInsert[];
  /** The error of each row no statement could insert, by id. */
  failed: Map<string, unknown>;
}

const NO_FAILURES: ReadonlyMap<string, unknown> = new Map();

export async function insertRowsTogether(runner: SqlRunner, t: SqlTables, rows: NewJobRow[], quiet: boolean): Promise<RoundInsert> {
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
export async function insertRowsApart(
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
 * `quiet` (only for a runner whose statements commit on their own) makes it a quiet insert: storage/statements/quiet-insert.ts.
 */
export async function insertRows(runner: SqlRunner, t: SqlTables, rows: NewJobRow[], quiet = false): Promise<InsertedRows> {
  const { columns, committedOn } = await insertStatement(runner, t, rows, quiet);
  const inserted = new Map<string, JobRow>();
  for (let i = 0; i < rows.length; i++) {
    const c = columns[i];
    if (c) inserted.set(c.id, storedJobRow(rows[i], c));
  }
  return { rows: inserted, committed: committedOn === undefined ? undefined : committedInsert(committedOn, inserted.values()) };
}

/** What one insert statement sent back: `columns[i]` for `rows[i]`, undefined for a row it skipped. */
interface InsertAnswer extends Pick<SqlResult<unknown>, 'committedOn'> {
  columns: Array<InsertedJobColumns | undefined>;
}

/** Runs the insert that suits `rows`: a keyless batch answers with one row, anything else with a row per job. */
async function insertStatement(runner: SqlRunner, t: SqlTables, rows: NewJobRow[], quiet: boolean): Promise<InsertAnswer> {
  const delaysFromStatement = runner.inCallerTransaction === true;
  if (rows.length > 1 && !rows.some(hasKeys)) {
    const result = await run<InsertedBatch>(runner, jobInsertBatch(t, rows, quiet, delaysFromStatement));
    return { columns: unpackInsertedBatch(rows, result.rows[0]), committedOn: result.committedOn };
  }
  // Rows with keys may be skipped, and RETURNING keeps no order: matched to the request by id.
  const result = await run<InsertedJobColumns>(runner, jobInsertMany(t, rows, quiet, delaysFromStatement));
  const byId = new Map<string, InsertedJobColumns>();
  for (const c of result.rows) byId.set(c.id, c);
  return { columns: rows.map((r) => byId.get(r.id)), committedOn: result.committedOn };
}
