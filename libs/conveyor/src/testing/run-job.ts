import { BackoffOptions } from '../config/backoff-options.interface';
import { ConveyorOptionsInput, validateConveyorOptions } from '../config/validate-conveyor-options';
import { PermanentJobError } from '../errors/permanent-job.error';
import { RetryLaterError } from '../errors/retry-later.error';
import { JobContext } from '../handlers/job-context.interface';
import { JobHandlerHost } from '../handlers/job-handler.host';
import { jobHandlerMetadataOf, jobHandlerSettings } from '../handlers/job-handler-settings';
import { Job } from '../job/job';
import { JobProgress } from '../job/job-progress';
import { readJobProgress } from '../consumer/job-progress.reader';
import { JobStatus } from '../job/job-status';
import { AttemptEnd, attemptRow } from '../consumer/outcome-rows';
import { JobCancelledError } from '../errors/job-cancelled.error';
import { JobTimeoutError } from '../errors/job-timeout.error';
import { LeaseLostError } from '../errors/lease-lost.error';
import { FinishRow } from '../storage/statements/finish-row';
import { JobRun, JobRunOutcome } from './job-run-outcome';
import { invalidSubmission, payloadProblems } from '../submission/payload-problems';
import { isThrownInstance } from '../errors/thrown-text';
import { buildTestJob } from './test-job';

/** How `runJob` sets up the attempt. */
export interface RunJobOptions<P> {
  /** Which attempt this is (1 = first); with `maxAttempts`, decides between `retry` and `dead`. Default 1. */
  attempt?: number;
  /**
   * The engine options the app gives `ConveyorModule` (`forRoot`): their `defaultMaxAttempts`, `defaultTimeoutMs`,
   * `backoff` and `maxSnoozes` apply where the handler's `@JobHandler` leaves them out, as in the app's worker.
   * Checked as the module checks them; `forRoot`'s `dataSourceName`, which names no engine option, is left aside.
   * Default: the engine's defaults.
   */
  engine?: ConveyorOptionsInput & { dataSourceName?: string | undefined };
  /** Default: the handler's `@JobHandler` `maxAttempts`, else the engine's `defaultMaxAttempts`. */
  maxAttempts?: number;
  /** Retry backoff used to compute `delayMs`, over the handler's `@JobHandler` `backoff` and the engine's default. */
  backoff?: Partial<BackoffOptions>;
  /** Times the job already asked to run later, against `maxSnoozes`. Default 0. */
  snoozes?: number;
  maxSnoozes?: number;
  /**
   * Aborts the attempt when it fires: the handler's `ctx.signal` fires with its reason, and the reason decides the
   * outcome at once, as in the engine (`JobCancelledError`: `cancelled`; `JobTimeoutError` or any other: a failed
   * attempt, `retry` or `dead`), whatever the handler does after.
   */
  signal?: AbortSignal;
  /**
   * Replaces `heartbeat`; calls are counted either way. Rejecting with LeaseLostError is a lost claim, as in the
   * engine: the attempt is aborted with it at once (`lease-lost`, nothing stored), whatever the handler does after.
   */
  heartbeat?: () => Promise<void>;
  /** Replaces `progress`, as `heartbeat` does (LeaseLostError: a lost claim); reports are recorded either way. */
  progress?: (progress: JobProgress) => Promise<void>;
  workerId?: string;
  /** Any other field of the job the handler receives (id, priority...; type and queue default to the decorator's). */
  job?: Partial<Job<P>>;
}

const TEST_WORKER = 'conveyor-testing';

/**
 * Runs one attempt of `handler` on `payload` with a real JobContext and no database, and says what the engine would
 * do after it, decided by the engine's own code: the handler's `@JobHandler` settings over the engine's options
 * (its timeout among them: an attempt still running then is aborted and fails with JobTimeoutError), the check of a
 * result before it is stored, and the classification of what the handler threw — or, once the attempt is aborted, of
 * the abort's reason, whatever the handler does after. So a test can assert "this input is retried", "that one is
 * given up" without starting Conveyor. The payload is checked as a submission checks it (storable as jsonb, valid
 * against the handler's payload class): one a submission would refuse rejects with the same JobValidationError, and
 * the handler never runs. It reaches the handler as stored, through JSON (a Date is an ISO string), as in the engine.
 */
export async function runJob<P, R>(handler: JobHandlerHost<P, R>, payload: P, options: RunJobOptions<P> = {}): Promise<JobRun<P, R>> {
  const { dataSourceName: _dataSource, ...engineOptions } = options.engine ?? {};
  const engine = validateConveyorOptions(engineOptions);
  const meta = jobHandlerMetadataOf(handler);
  const settings = jobHandlerSettings(meta, engine);
  // A payload a submission would refuse never reaches a handler; one it takes reaches it as stored, through JSON.
  const problems = payloadProblems(payload, settings.payloadClass);
  if (problems.length > 0) throw invalidSubmission(problems);
  const job = buildTestJob(JSON.parse(JSON.stringify(payload)) as P, {
    ...(meta ? { type: meta.type } : {}),
    queue: settings.queue,
    attempts: options.attempt ?? 1,
    maxAttempts: options.maxAttempts ?? settings.maxAttempts,
    snoozes: options.snoozes ?? 0,
    lockedBy: options.workerId ?? TEST_WORKER,
    ...options.job,
  });
  const attempt = new AbortController();
  let heartbeats = 0;
  const beat = options.heartbeat ?? (() => Promise.resolve());
  const reported: JobProgress[] = [];
  const report = options.progress ?? (() => Promise.resolve());
  // The engine drops an attempt whose report found the claim gone, and the report rejects with LeaseLostError.
  const claimLost = (err: unknown): never => {
    if (err instanceof LeaseLostError) attempt.abort(err);
    throw err;
  };
  // Once the attempt is over its claim is gone, so a report then (a handler's late or unawaited call) finds no lease
  // to extend in the engine and rejects with LeaseLostError, after the check of what it reports.
  let over = false;
  const context: JobContext = {
    signal: attempt.signal,
    attempt: job.attempts,
    workerId: options.workerId ?? TEST_WORKER,
    heartbeat: () => {
      heartbeats++;
      if (over) return Promise.reject(new LeaseLostError(job.id));
      return beat().catch(claimLost);
    },
    progress: async (input) => {
      const progress = readJobProgress(input);
      if (over) throw new LeaseLostError(job.id);
      reported.push(progress);
      return report(progress).catch(claimLost);
    },
  };
  const end = await runAttempt(() => handler.handle(job, context), attempt, options.signal, settings.timeoutMs);
  over = true;
  const backoff = { ...settings.backoff, ...options.backoff };
  const row = attemptRow(job, { backoff }, end, TEST_WORKER, options.maxSnoozes ?? engine.maxSnoozes);
  return { ...outcomeOf<R>(row, end), job, heartbeats, progress: reported };
}

/**
 * Runs the handler until it settles or the attempt is aborted — by the caller's signal, or at the timeout — whichever
 * comes first, as the engine's executor does: an abort ends the attempt at once, even if the handler ignores it.
 */
function runAttempt(
  handle: () => unknown,
  attempt: AbortController,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<AttemptEnd> {
  return new Promise((resolve) => {
    let ended = false;
    const forward = () => attempt.abort(signal!.reason);
    const end = (ok: boolean, value: unknown) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
      resolve({ ok, value, aborted: attempt.signal.aborted ? { reason: attempt.signal.reason as unknown } : null });
    };
    attempt.signal.addEventListener('abort', () => end(false, attempt.signal.reason), { once: true });
    const timer = setTimeout(() => attempt.abort(new JobTimeoutError(timeoutMs)), timeoutMs);
    if (signal?.aborted) return forward();
    signal?.addEventListener('abort', forward, { once: true });
    try {
      Promise.resolve(handle()).then(
        (value) => end(true, value),
        (err: unknown) => end(false, err),
      );
    } catch (err) {
      end(false, err);
    }
  });
}

/** What a written row (or none) means for the job, with what decided it. */
function outcomeOf<R>(row: FinishRow | null, end: AttemptEnd): JobRunOutcome<R> {
  const error = end.aborted ? end.aborted.reason : end.value;
  if (row === null) return isThrownInstance(error, JobCancelledError) ? { kind: 'cancelled', error } : { kind: 'lease-lost', error };
  switch (row.status) {
    case JobStatus.COMPLETED:
      return { kind: 'completed', result: row.result as R, ...(row.error ? { lastError: row.error } : {}) };
    case JobStatus.PENDING:
      return { kind: 'handed-back', error };
    case JobStatus.RETRYING:
      if (isThrownInstance(error, RetryLaterError) && row.snoozed) {
        // The time the engine waits until, as its history entry says: past year 9999, the end of 9999.
        return { kind: 'retry-later', runAt: row.entry?.retryAt ? new Date(row.entry.retryAt) : error.runAt, error };
      }
      return { kind: 'retry', delayMs: row.delay_ms ?? 0, error };
    case JobStatus.CANCELLED:
      return { kind: 'cancelled', error };
    default:
      return isThrownInstance(error, PermanentJobError) ? { kind: 'permanent', error } : { kind: 'dead', error };
  }
}
