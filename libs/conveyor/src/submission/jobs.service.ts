import { Inject, Injectable } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { MESSAGES } from '../errors/conveyor.messages';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { SqlRunner } from '../storage/connections/sql-runner.interface';
import { isUniqueViolation, UNIQUE_KEY_INDEX } from '../storage/connections/unique-violation';
import { isDeadlockDetected, runAgainOnDeadlock } from '../storage/connections/deadlock-detected';
import { JobNotFoundError, JobStateConflictError, JobValidationError, UniqueKeyConflictError } from '../errors/job-request.errors';
import { ConveyorEvents } from '../observation/events/conveyor-events.service';
import { LivePublisher } from '../observation/live/live-publisher.service';
import {
  jobCancel,
  jobDeleteFinished,
  jobGetById,
  jobGetByUniqueKeys,
  jobList,
  ListedJobRow,
  JobListFilter,
  jobRetry,
  jobRunNow,
  hasKeys,
  jobsNotifyReady,
  NewJobRow,
  run,
} from '../storage/statements';
import { Job } from '../job/job';
import { InsertedJobs, insertJobs, insertJobsInTurn } from './insert-jobs';
import { isJobId } from '../job/job-id';
import { EnqueueOptions, JobRequest, SubmitResult } from './job-request.interface';
import { JobRow, mapJobRow } from '../storage/statements/job-row.mapper';
import { JobRequestValidator } from './job-request.validator';
import { LOCAL_PICKUP, LocalPickup } from './local-pickup.port';
import { CLAIMABLE_STATUSES, JobStatus, TERMINAL_STATUSES } from '../job/job-status';
import { SharedInsertAnswer, SharedInsertService } from './shared-insert.service';
import { committedTransaction } from './insert-rows';
import { rowsPerStatement } from './statement-budget';
import type { EntityManager } from 'typeorm';

/** A page of the job list. */
export interface JobPage {
  items: Job[];
  nextCursor: string | null;
}

/**
 * Submitting, reading and steering jobs: what the REST controller and in-code producers call.
 * Submission is validated in one place (JobRequestValidator), per request, and then inserted: a batch with one
 * multi-row statement, a single submission together with concurrent ones (SharedInsertService).
 */
@Injectable()
export class JobsService {
  constructor(
    private readonly db: ConveyorDatabase,
    private readonly validator: JobRequestValidator,
    private readonly events: ConveyorEvents,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    @Inject(LOCAL_PICKUP) private readonly pickup: LocalPickup,
    private readonly shared: SharedInsertService,
    private readonly live: LivePublisher,
  ) {}

  /**
   * Enqueues one job from code. Pass `options.manager` (a transactional EntityManager) to insert it
   * inside your own transaction. Returns the stored job (the existing one for a repeated idempotency key);
   * for a new job its `payload` is the value you passed, not a copy read back from the database.
   */
  async enqueue<P>(type: string, payload: P, options: EnqueueOptions = {}): Promise<Job<P>> {
    const { manager, ...rest } = options;
    const runAt = rest.runAt instanceof Date ? rest.runAt.toISOString() : rest.runAt;
    const result = await this.submit({ ...rest, runAt, type, payload }, manager);
    return result.job as Job<P>;
  }

  /**
   * Enqueues many jobs from code, all or nothing: one statement, or, beyond `maxBatchSize` jobs or 16 MiB of
   * payload, several in one transaction.
   */
  async enqueueMany(requests: JobRequest[], options: Pick<EnqueueOptions, 'manager'> = {}): Promise<Job[]> {
    const normalized = requests.map((r) => (r.runAt instanceof Date ? { ...r, runAt: r.runAt.toISOString() } : r));
    const rows = this.validateBatch(normalized);
    return this.insertBatch(rows, options.manager);
  }

  /**
   * One submission (REST or code): 201-style `created: true`, or the earlier job for a repeated key. On the pool it
   * shares its statements with concurrent submissions (SharedInsertService); in a caller's transaction (`manager`)
   * it is alone, and counted as submitted once that transaction commits.
   */
  async submit(input: unknown, manager?: EntityManager): Promise<SubmitResult<Job>> {
    const row = this.validator.toRow(input);
    const runner = this.db.runnerFor(manager);
    const { stored, created } = runner === this.db.pool ? await this.shared.insert(row) : await this.insertAlone(row, runner);
    const job = mapJobRow(stored);
    if (created && this.live.watching) await this.live.announceIn(runner, [{ id: job.id, status: job.status }]);
    if (created) this.db.afterCallerCommit(manager, () => this.events.emit('submitted', [job]));
    return { job, created };
  }

  /** One row in a caller's transaction: nothing commits here, so there is nothing to wake workers for. */
  private async insertAlone(row: NewJobRow, runner: SqlRunner): Promise<SharedInsertAnswer> {
    const { answers, created } = await insertJobs(runner, this.db.tables, [row]);
    return { stored: answers[0], created: created.length > 0 };
  }

  /** Batch submission: all valid and inserted, or nothing. */
  async submitBatch(inputs: unknown): Promise<Job[]> {
    if (!Array.isArray(inputs)) {
      throw new JobValidationError('Invalid batch', [{ field: 'jobs', problems: ['must be an array'] }]);
    }
    if (inputs.length === 0 || inputs.length > this.options.maxBatchSize) {
      throw new JobValidationError('Invalid batch', [
        { field: 'jobs', problems: [`must hold between 1 and ${this.options.maxBatchSize} jobs`] },
      ]);
    }
    return this.insertBatch(this.validateBatch(inputs));
  }

  /** Every submission of a batch checked; one JobValidationError naming every bad field, or the rows. */
  private validateBatch(inputs: unknown[]): NewJobRow[] {
    const rows: NewJobRow[] = [];
    const problems = [];
    for (let i = 0; i < inputs.length; i++) {
      try {
        rows.push(this.validator.toRow(inputs[i], `jobs[${i}].`));
      } catch (err) {
        if (!(err instanceof JobValidationError)) throw err;
        problems.push(...(err.details ?? []));
      }
    }
    if (problems.length > 0) throw new JobValidationError(batchProblemMessage(problems.map((p) => p.field)), problems);
    return rows;
  }

  /**
   * Inserts validated rows, all or nothing, in statements of at most `maxBatchSize` rows and 16 MiB of payload
   * (statement-budget.ts): in the caller's transaction when given one; else rows without keys that fit one
   * statement go in as that statement on the pool (a statement is atomic by itself, and BEGIN and COMMIT would
   * be two more round trips per batch), and rows with keys, whose conflicts can take further reads and
   * inserts, or rows that take more than one statement, in a transaction of their own.
   */
  private async insertBatch(rows: NewJobRow[], manager?: EntityManager): Promise<Job[]> {
    const callerRunner = manager ? this.db.runnerFor(manager) : undefined;
    const statements = rowsPerStatement(rows, this.options.maxBatchSize);
    const { answers, created, committed } = callerRunner
      ? await insertJobsInTurn(callerRunner, this.db.tables, statements)
      : statements.length > 1 || rows.some(hasKeys)
        ? await this.insertInTransaction(statements)
        : await this.insertKeyless(rows);
    this.pickup.committed(committed);
    // Most answers are the created rows themselves: map each stored row once.
    const mapped = new Map<JobRow, Job>();
    const jobOf = (r: JobRow) => mapped.get(r) ?? mapped.set(r, mapJobRow(r)).get(r)!;
    const jobs = answers.map(jobOf);
    if (created.length > 0 && this.live.watching) {
      await this.live.announceIn(
        callerRunner ?? this.db.pool,
        created.map((r) => ({ id: r.id as string, status: r.status as string })),
      );
    }
    if (created.length > 0) this.db.afterCallerCommit(manager, () => this.events.emit('submitted', created.map(jobOf)));
    return jobs;
  }

  /**
   * Inserts the statements of a batch in a transaction of its own. A row whose key another transaction has taken
   * and not yet committed waits for it, holding the keys of the rows before it; two batches taking the same keys in
   * different orders (or a batch and a bulk retry) can so wait for each other, and PostgreSQL aborts one of them
   * after `deadlock_timeout`. The aborted transaction changed nothing: it is run again, and now waits for the other's
   * keys instead of holding its own, then answers with the jobs holding them.
   */
  private insertInTransaction(statements: NewJobRow[][]): Promise<InsertedJobs> {
    return runAgainOnDeadlock(() =>
      this.db.transaction(async (tx, backendPid) => {
        const inserted = await insertJobsInTurn(tx, this.db.tables, statements);
        return { ...inserted, committed: committedTransaction(backendPid, inserted.created) };
      }),
    );
  }

  /**
   * Inserts a keyless batch on the pool; when this instance's workers would take all of it at once, as a quiet insert
   * with the claim right behind it (LocalPickup).
   */
  private insertKeyless(rows: NewJobRow[]): Promise<InsertedJobs> {
    return this.pickup.insertKeyless(rows, (runner, quiet) => insertJobs(runner, this.db.tables, rows, quiet));
  }

  /** One job; JobNotFoundError when there is none. */
  async get(id: string): Promise<Job> {
    const { rows } = await run<JobRow>(this.db.pool, jobGetById(this.db.tables, id));
    if (rows.length === 0) throw new JobNotFoundError(MESSAGES.jobNotFound(id));
    return mapJobRow(rows[0]);
  }

  /** Newest first, keyset-paginated; `cursor` is the `nextCursor` of the previous page. */
  async list(filter: Omit<JobListFilter, 'beforeId'> & { cursor?: string }): Promise<JobPage> {
    const beforeId = filter.cursor ? decodeCursor(filter.cursor) : undefined;
    const escapedKey = filter.key?.replace(/[\\%_]/g, (c) => `\\${c}`);
    const { rows } = await run<ListedJobRow>(this.db.pool, jobList(this.db.tables, { ...filter, key: escapedKey, beforeId }));
    // More exist when the page read one past the limit, or ended early on the size of its jobs (LIST_PAGE_STORED_BYTES).
    const more = rows.length > filter.limit || (rows.length > 0 && rows[0].page_rows > rows.length);
    const items = rows.slice(0, filter.limit).map((r) => mapJobRow(r));
    return { items, nextCursor: more ? encodeCursor(items[items.length - 1].id) : null };
  }

  /**
   * SCHEDULED/PENDING/RETRYING/RUNNING → CANCELLED; JobStateConflictError otherwise. A RUNNING job's handler is
   * told through its AbortSignal, on whichever instance runs it (see jobCancel), and its outcome is not stored.
   */
  async cancel(id: string): Promise<Job> {
    return this.inAcceptedState(id, CANCELLABLE, MESSAGES.cannotCancel, () => this.cancelMany([id]));
  }

  /**
   * {@link cancel} for many jobs in one statement and one commit: answers the jobs it cancelled. A job missing or in a
   * state that does not allow it is left out, for the caller to settle one by one (with its 404 or 409).
   */
  async cancelMany(ids: readonly string[]): Promise<Job[]> {
    if (ids.length === 0) return [];
    const { rows } = await run<JobRow>(this.db.pool, jobCancel(this.db.tables, ids, this.db.channel));
    const jobs = rows.map((r) => mapJobRow(r));
    this.live.announce(jobs.map((job) => ({ id: job.id, status: job.status })));
    for (const job of jobs) this.events.emit('cancelled', job);
    return jobs;
  }

  /**
   * Makes a SCHEDULED, PENDING or RETRYING job due now and wakes the claimers of every instance;
   * JobStateConflictError in other states.
   */
  async runNow(id: string): Promise<Job> {
    const row = await this.inAcceptedState(
      id,
      CLAIMABLE_STATUSES,
      MESSAGES.cannotRunNow,
      async () => (await run<JobRow>(this.db.pool, jobRunNow(this.db.tables, id))).rows,
    );
    await run(this.db.pool, jobsNotifyReady(this.db.channel));
    const job = mapJobRow(row);
    this.live.announce([{ id: job.id, status: job.status }]);
    return job;
  }

  /**
   * DEAD/CANCELLED → PENDING with a fresh attempt budget, waking the claimers of every instance;
   * JobStateConflictError otherwise, also when no handler knows the job's type any more (it would wait forever), and
   * UniqueKeyConflictError when a newer waiting or running job holds this job's unique key.
   */
  async retry(id: string): Promise<Job> {
    return this.inAcceptedState(id, RETRYABLE, MESSAGES.cannotRetry, async () => {
      const jobs = await this.retryListed([id]).catch(async (err: unknown) => {
        throw isUniqueViolation(err, UNIQUE_KEY_INDEX) ? await this.uniqueKeyConflict(id) : err;
      });
      if (jobs.length === 0) await this.refuseUnknownType(id);
      return jobs;
    });
  }

  /** A job the retry left alone although its state allows it: refused when no handler knows its type. */
  private async refuseUnknownType(id: string): Promise<void> {
    const job = await this.get(id);
    if (RETRYABLE.includes(job.status) && !this.validator.isKnownType(job.type)) {
      throw new JobStateConflictError(MESSAGES.noHandlerToRetry(job.type), job.status);
    }
  }

  /**
   * {@link retry} for many jobs in one statement and one commit: answers the jobs it retried. A job missing, in a
   * state that does not allow it or of a type no handler knows is left out, for the caller to settle one by one (with its 404 or 409). When one of
   * them would take a unique key that is held, the statement changes nothing and none is answered: the single retry
   * then settles each in turn, the holder's 409 included. The same when the statement, waiting for a key another
   * transaction holds while holding others, is aborted to break a deadlock: the single retry holds one key at a time.
   */
  async retryMany(ids: readonly string[]): Promise<Job[]> {
    return this.retryListed(ids).catch((err: unknown) => {
      if (isUniqueViolation(err, UNIQUE_KEY_INDEX) || isDeadlockDetected(err)) return [];
      throw err;
    });
  }

  /** Retries the listed jobs whose state allows it; the update trips no insert trigger, so the claimers are woken here. */
  private async retryListed(ids: readonly string[]): Promise<Job[]> {
    if (ids.length === 0) return [];
    const { rows } = await run<JobRow>(this.db.pool, jobRetry(this.db.tables, ids, this.validator.knownTypes()));
    if (rows.length > 0) await run(this.db.pool, jobsNotifyReady(this.db.channel));
    const jobs = rows.map((r) => mapJobRow(r));
    this.live.announce(jobs.map((job) => ({ id: job.id, status: job.status })));
    return jobs;
  }

  private async uniqueKeyConflict(id: string): Promise<UniqueKeyConflictError> {
    const job = await this.get(id);
    const key = job.uniqueKey ?? '';
    const { rows } = await run<JobRow>(this.db.pool, jobGetByUniqueKeys(this.db.tables, [{ type: job.type, key }]));
    const holderId = (rows[0]?.id as string | undefined) ?? null;
    return new UniqueKeyConflictError(MESSAGES.uniqueKeyTaken(job.type, key, holderId), holderId);
  }

  /** Deletes a job in a terminal state (DEAD jobs are kept until an operator retries or purges them). */
  async purge(id: string): Promise<void> {
    await this.inAcceptedState(id, TERMINAL_STATUSES, MESSAGES.cannotPurge, () => this.purgeMany([id]));
  }

  /**
   * {@link purge} for many jobs in one statement and one commit: answers the ids it deleted. A job missing or not
   * finished is left out, for the caller to settle one by one (with its 404 or 409).
   */
  async purgeMany(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await run<{ id: string; queue: string; type: string }>(this.db.pool, jobDeleteFinished(this.db.tables, ids));
    this.live.announceDeleted(rows);
    return rows.map((r) => r.id);
  }

  /**
   * Runs a state-guarded statement (one row back when it applied) until it applies or the job is in a state it
   * refuses; JobStateConflictError naming that state, JobNotFoundError when the job is gone. The statement's WHERE
   * sees the row as of its snapshot, so a change committed between the snapshot and the scan (a retry making a DEAD
   * job PENDING while a cancel starts) makes it miss a job that now qualifies: the read after it then shows an
   * accepted state, and the statement runs again on a fresh snapshot. Each new try follows another committed
   * change of the job, so the bound is only a guard against a job that changes state without end.
   */
  private async inAcceptedState<R>(
    id: string,
    accepted: readonly JobStatus[],
    refusal: (status: string) => string,
    apply: () => Promise<R[]>,
  ): Promise<R> {
    for (let tries = 1; ; tries++) {
      const rows = await apply();
      if (rows.length === 1) return rows[0];
      const job = await this.get(id);
      if (!accepted.includes(job.status) || tries === MAX_STATE_GUARD_TRIES) {
        throw new JobStateConflictError(refusal(job.status), job.status);
      }
    }
  }

  /** Statuses as stored; exported for callers that want to check a filter value. */
  static readonly statuses = Object.values(JobStatus);
}

/** States each operator action applies to; the statements (job-cancel, job-retry) guard the same ones. */
const CANCELLABLE: readonly JobStatus[] = [...CLAIMABLE_STATUSES, JobStatus.RUNNING];
const RETRYABLE: readonly JobStatus[] = [JobStatus.DEAD, JobStatus.CANCELLED];
/** Tries of a state-guarded action whose job kept moving into an accepted state (see inAcceptedState). */
const MAX_STATE_GUARD_TRIES = 5;

/** Fields named in a batch's error message; the details list every one. */
const MESSAGE_FIELDS = 10;

function batchProblemMessage(fields: string[]): string {
  const named = fields.slice(0, MESSAGE_FIELDS).join(', ');
  return `Invalid batch: ${named}${fields.length > MESSAGE_FIELDS ? ` and ${fields.length - MESSAGE_FIELDS} more` : ''}`;
}

/** Cursors are opaque to clients: base64url of the last id seen. */
export function encodeCursor(id: string): string {
  return Buffer.from(`i:${id}`).toString('base64url');
}

/**
 * Decodes a cursor; throws JobValidationError naming `cursor` when it is not one of ours.
 */
export function decodeCursor(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // The id is checked as a `:id` parameter is, so a cursor PostgreSQL would reject (a 500) is a 400 here.
  const id = text.slice(2);
  if (!text.startsWith('i:') || !isJobId(id)) {
    throw new JobValidationError('Invalid cursor', [{ field: 'cursor', problems: ['is not a cursor this API issued'] }]);
  }
  return id.toLowerCase();
}
