import { Inject, Injectable, Logger } from '@nestjs/common';
import { claimedItems } from '../claiming/claimed-items';
import { ClaimStrategy } from '../claiming/claim-strategy.interface';
import { CLAIM_STRATEGY, CONVEYOR_OPTIONS } from '../../config/conveyor.constants';
import { MESSAGES } from '../../errors/conveyor.messages';
import { ConveyorOptions } from '../../config/conveyor-options.interface';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { JobNotFoundError, JobStateConflictError, JobValidationError } from '../../errors/job-request.errors';
import { PermanentJobError } from '../../errors/permanent-job.error';
import { RetryLaterError } from '../../errors/retry-later.error';
import { ConveyorEvents } from '../../observation/events/conveyor-events.service';
import { LivePublisher } from '../../observation/live/live-publisher.service';
import { HandlerRegistry } from '../../handlers/handler-registry.service';
import { Job } from '../../job/job';
import { JobRow, mapJobRow } from '../../storage/statements/job-row.mapper';
import { JobStatus } from '../../job/job-status';
import { jobLog } from '../../observation/logging/job-log-fields';
import { jobExtendLease } from '../../storage/statements/job-extend-leases.sql';
import { FinishAnswer, writtenAt } from '../../storage/statements/finish-answer.codec';
import { FinishRow } from '../../storage/statements/finish-row';
import { jobFinishMany } from '../../storage/statements/job-finish-many.sql';
import { jobGetById } from '../../storage/statements/job-get-by-id.sql';
import { jobSetProgress } from '../../storage/statements/job-set-progress.sql';
import { JobProgress } from '../../job/job-progress';
import { readJobProgress } from '../job-progress.reader';
import { run } from '../../storage/statements/statement';
import { logOutcome } from '../job-outcome-log';
import { completedRow, failureRow, handBackRow, outcomeOf } from '../outcome-rows';
import { ExternalClaimRequest } from './external-claim-request.interface';
import { ExternalFailure } from './external-failure.interface';
import { ExternalLease, ExternalOutcome } from './external-outcome.interface';

/** Who a refused report came from, as far as the engine can tell: the token's holder is not known. */
const UNKNOWN_HOLDER = 'an external worker';

/** Most payload text (JSON characters) one claim's answer carries; see ExternalWorkers.withinAnswer. */
export const MAX_CLAIM_ANSWER_PAYLOAD_CHARS = 64 * 1024 * 1024;

/**
 * Most stored payload bytes one claim takes (`ClaimFilter.maxPayloadBytes`): the answer's figure. An incompressible
 * ASCII payload stores about as many bytes as its JSON text has characters, so the claim statement reads no payload
 * its answer could not carry; one that compresses may still be taken and handed back by withinAnswer. Text outside
 * ASCII stores more bytes than characters, so such a claim may take fewer jobs than its answer could carry (the next
 * claim takes the rest).
 */
export const MAX_CLAIM_PAYLOAD_BYTES = MAX_CLAIM_ANSWER_PAYLOAD_CHARS;

/**
 * External workers: processes outside this service, in any language, that work jobs over HTTP.
 *
 * The protocol is the in-process one, spoken over the wire:
 * - **claim**: the configured ClaimStrategy takes due jobs of one queue — paused queues skipped, priority
 *   then run_at — restricted to the declared external types. Each claimed job gets a fresh lease token and
 *   a lease, exactly as for in-process workers (which never claim external types).
 * - **heartbeat**: extends the lease, only while the job is still RUNNING under that token. A job an operator
 *   cancelled is answered with a 409 whose `jobStatus` is CANCELLED: the worker stops it and reports nothing.
 * - **progress**: stores a progress report on the job, under the same guard.
 * - **complete / fail**: the outcome row is built by the functions in-process outcomes use (`completedRow`,
 *   `failureRow`: backoff, attempts, snoozes, DEAD) and written by the same guarded statement, which changes
 *   the row only while it is RUNNING under that token. A worker whose lease expired — the sweeper rescued
 *   the job and maybe another worker claimed it again — is refused with a conflict and changes nothing.
 * - A worker that dies just stops heart-beating: the leader's lease sweeper rescues its jobs.
 *
 * Outcomes are written at once, not through the batching Completer: the caller waits for the answer and
 * must learn about a lost claim, and an unreachable database must reach it as a 503 it can retry, not as
 * an outcome held in this process's memory. Claims and outcomes go through the engine's events, so metrics
 * count them like in-process ones.
 */
@Injectable()
export class ExternalWorkers {
  private readonly logger = new Logger('Conveyor:ExternalWorker');

  constructor(
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    @Inject(CLAIM_STRATEGY) private readonly strategy: ClaimStrategy,
    private readonly db: ConveyorDatabase,
    private readonly registry: HandlerRegistry,
    private readonly events: ConveyorEvents,
    private readonly live: LivePublisher,
  ) {}

  /**
   * Claims up to `request.max` due jobs of `queue` (at most `claimBatchSize`) under a fresh lease token: the
   * claim's, shared by the jobs it took (see claimSet).
   */
  async claim(queue: string, request: ExternalClaimRequest): Promise<Job[]> {
    const types = request.types ?? this.options.externalTypes;
    const undeclared = types.filter((t) => !this.options.externalTypes.includes(t));
    if (undeclared.length > 0) {
      throw new JobValidationError('Invalid claim: types', [
        { field: 'types', problems: undeclared.map((t) => MESSAGES.notExternalType(t)) },
      ]);
    }
    if (types.length === 0) return [];
    const limit = Math.min(request.max, this.options.claimBatchSize);
    const filter = { types, excludedQueues: [], onlyQueues: [queue], limit, maxPayloadBytes: MAX_CLAIM_PAYLOAD_BYTES };
    const claim = await this.strategy.claim(filter, request.workerId, request.leaseMs ?? this.options.leaseMs);
    const jobs = await this.withinAnswer(claim.jobs);
    this.events.emit('claimed', jobs, limit);
    if (jobs.length > 0 && this.live.watching) this.live.announceItems(claimedItems({ ...claim, jobs }));
    // Handing a job to its worker is as close to "its handler started" as this side can see.
    for (const job of jobs) this.events.emit('started', job, job.runAt);
    return jobs;
  }

  /**
   * The claimed jobs whose payloads fit in one answer ({@link MAX_CLAIM_ANSWER_PAYLOAD_CHARS}; at least the first job);
   * the others are handed back unrun at once, their attempt refunded. The answer is one JSON text: past V8's longest
   * string it could not be sent at all, and the jobs it held would wait, claimed, for their leases to expire, each
   * losing an attempt, claim after claim. A hand-back that fails leaves those to their leases; the claim still answers.
   * The claim statement already stopped at MAX_CLAIM_PAYLOAD_BYTES of stored payloads: this cut is for payloads
   * stored compressed. Each job handed back is a `handed_back` outcome, as at shutdown.
   */
  private async withinAnswer(jobs: Job[]): Promise<Job[]> {
    let chars = 0;
    let fit = 0;
    while (fit < jobs.length) {
      chars += JSON.stringify(jobs[fit].payload ?? null).length;
      if (fit > 0 && chars > MAX_CLAIM_ANSWER_PAYLOAD_CHARS) break;
      fit++;
    }
    if (fit === jobs.length) return jobs;
    const reason = MESSAGES.claimAnswerFull(MAX_CLAIM_ANSWER_PAYLOAD_CHARS);
    const back = jobs.slice(fit).map((job) => handBackRow(job, job.lockedBy ?? UNKNOWN_HOLDER, reason));
    try {
      const { rows } = await run<FinishAnswer>(this.db.pool, jobFinishMany(this.db.tables, back));
      const written = writtenAt(rows[0]);
      jobs.slice(fit).forEach((job, i) => {
        if (written(i)) this.events.emit('finished', job, JobStatus.PENDING, 0, 'handed_back');
      });
    } catch (err) {
      // The claim committed: the jobs that fit are this worker's whatever became of the hand-back. Failing the claim
      // would leave them RUNNING under a claim nobody holds, each losing an attempt at lease expiry, as the jobs not
      // handed back do now.
      this.logger.warn(
        `Could not hand back ${back.length} claimed job(s) that did not fit in the claim's answer; they are rescued when their lease expires: ${(err as Error).message}`,
      );
    }
    return jobs.slice(0, fit);
  }

  /** Extends the lease by `leaseMs` (the engine's `leaseMs` when omitted) from now. */
  async heartbeat(id: string, leaseToken: string, leaseMs = this.options.leaseMs): Promise<ExternalLease> {
    const stmt = jobExtendLease(this.db.tables, { id, token: leaseToken }, leaseMs);
    const { rows } = await run<{ id: string; locked_until: Date }>(this.db.pool, stmt);
    if (rows.length === 1) return { id, lockedUntil: rows[0].locked_until };
    throw this.refuse(await this.get(id));
  }

  /** Stores a progress report (checked by readJobProgress), only while the job is RUNNING under this token. */
  async progress(id: string, leaseToken: string, input: unknown): Promise<JobProgress> {
    const progress = readJobProgress(input);
    const { rows } = await run<{ id: string }>(this.db.pool, jobSetProgress(this.db.tables, id, leaseToken, JSON.stringify(progress)));
    if (rows.length === 0) throw this.refuse(await this.get(id));
    this.live.announce([{ id, status: JobStatus.RUNNING }]);
    return progress;
  }

  /** Completes the job with `result` (already checked to be storable). */
  async complete(id: string, leaseToken: string, result: unknown): Promise<ExternalOutcome> {
    const job = await this.held(id, leaseToken);
    return this.write(job, completedRow(job, result));
  }

  /** Fails the attempt: retried with backoff, retried at `retryAt`, or DEAD, as the failure and the job's attempts say. */
  async fail(id: string, leaseToken: string, failure: ExternalFailure): Promise<ExternalOutcome> {
    const job = await this.held(id, leaseToken);
    const backoff = this.registry.get(job.type)?.backoff ?? this.options.backoff;
    const row = failureRow(job, { backoff }, toError(failure), job.lockedBy ?? UNKNOWN_HOLDER, this.options.maxSnoozes);
    return this.write(job, row);
  }

  /** Hands the job back unrun (its worker is stopping): PENDING at once, and the attempt does not count. */
  async handBack(id: string, leaseToken: string): Promise<ExternalOutcome> {
    const job = await this.held(id, leaseToken);
    return this.write(job, handBackRow(job, job.lockedBy ?? UNKNOWN_HOLDER));
  }

  /** The job, when it is RUNNING under this token; a conflict otherwise. */
  private async held(id: string, leaseToken: string): Promise<Job> {
    const job = await this.get(id);
    if (job.status !== JobStatus.RUNNING || job.leaseToken !== leaseToken) throw this.refuse(job);
    return job;
  }

  private async get(id: string): Promise<Job> {
    const { rows } = await run<JobRow>(this.db.pool, jobGetById(this.db.tables, id));
    if (rows.length === 0) throw new JobNotFoundError(MESSAGES.jobNotFound(id));
    return mapJobRow(rows[0]);
  }

  /** The guarded write; the claim may still be lost between reading the job and writing its outcome. */
  private async write(job: Job, row: FinishRow): Promise<ExternalOutcome> {
    const { rows } = await run<FinishAnswer>(this.db.pool, jobFinishMany(this.db.tables, [row]));
    if (rows[0].written === 0) throw this.refuse(await this.get(job.id));
    this.live.announce([{ id: job.id, status: row.status }]);
    const durationMs = job.startedAt ? Math.max(0, Date.now() - job.startedAt.getTime()) : 0;
    const outcome = outcomeOf(row);
    this.events.emit('finished', job, row.status, durationMs, outcome);
    logOutcome(this.logger, job, row, job.lockedBy ?? UNKNOWN_HOLDER, durationMs, outcome);
    // No `requeued` event: it wakes the in-process poller, which never claims external types.
    const retryInMs = row.status === JobStatus.RETRYING ? (row.delay_ms ?? 0) : null;
    return { id: job.id, status: row.status, retryInMs };
  }

  /**
   * A late or wrong report: counted and logged like a stale in-process write, answered with a conflict that names the
   * job's status (`jobStatus`). A CANCELLED job was cancelled by an operator while the worker held it: the answer says
   * so, and the worker stops.
   */
  private refuse(job: Job): JobStateConflictError {
    this.events.emit('stale', job.id, UNKNOWN_HOLDER);
    if (job.status === JobStatus.CANCELLED) {
      this.logger.log(jobLog('Report from an external worker refused: the job was cancelled', job, UNKNOWN_HOLDER));
      return new JobStateConflictError(MESSAGES.cancelledWhileHeld(job.id), job.status);
    }
    this.logger.warn(jobLog('Stale report from an external worker ignored: its lease token does not hold the job', job, UNKNOWN_HOLDER));
    return new JobStateConflictError(MESSAGES.leaseNotHeld(job.id, job.status), job.status);
  }
}

/** The error the in-process classification (`failureRow`) would have seen for this report. */
function toError(failure: ExternalFailure): Error {
  if (failure.retryAt) return new RetryLaterError(failure.retryAt, failure.error);
  const err = failure.permanent ? new PermanentJobError(failure.error) : new Error(failure.error);
  if (!failure.permanent) err.name = failure.errorName ?? 'Error';
  // This process's own stack would only describe the HTTP route: keep the worker's, or none.
  err.stack = failure.stack ?? '';
  return err;
}
