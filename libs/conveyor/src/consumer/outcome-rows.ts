import { MESSAGES } from '../errors/conveyor.messages';
import { JobOutcome } from '../observation/events/conveyor-events.service';
import { CancelJobError } from '../errors/cancel-job.error';
import { JobCancelledError } from '../errors/job-cancelled.error';
import { JobTimeoutError } from '../errors/job-timeout.error';
import { PermanentJobError } from '../errors/permanent-job.error';
import { RetryLaterError } from '../errors/retry-later.error';
import { Job } from '../job/job';
import { JobErrorEntry } from '../job/job-error-entry.interface';
import { JobErrorKind } from '../job/job-error-kind';
import { JobStatus } from '../job/job-status';
import { replaceLoneSurrogates, toStorableResult } from '../job/json-safety';
import { RegisteredHandler } from '../handlers/registered-handler.interface';
import { FinishRow } from '../storage/statements/finish-row';
import { LeaseLostError } from '../errors/lease-lost.error';
import { WorkerShutdownError } from '../errors/worker-shutdown.error';
import { thrownStack, thrownText } from '../errors/thrown-text';
import { LAST_INSTANT } from '../submission/run-at-text';
import { retryDelayMs } from './retry-delay';

const MAX_STACK = 8_000;
const MAX_MESSAGE = 4_000;

/** How an attempt ended, as the executor (and `runJob`) saw it. */
export interface AttemptEnd {
  /** The handler returned `value` (true), or threw it or was aborted with it (false). */
  ok: boolean;
  value: unknown;
  /** Why the attempt was aborted, if it was: then the reason decides, whatever the handler did after. */
  aborted: { reason: unknown } | null;
  /** The claim is known lost: a failed attempt writes nothing. */
  lost?: boolean;
}

/**
 * The row an attempt writes back, or null when nothing may be written. A failed attempt is classified by its
 * abort's reason when it was aborted: nothing for a lost claim or a job an operator cancelled (it is CANCELLED
 * already), a hand-back at shutdown, a failed attempt for a timeout or anything else. A row that cannot be made from
 * what the handler produced is made from the error that stopped it.
 */
export function attemptRow(
  job: Job,
  handler: Pick<RegisteredHandler, 'backoff'>,
  end: AttemptEnd,
  worker: string,
  maxSnoozes: number,
): FinishRow | null {
  const failed = (err: unknown): FinishRow | null => {
    const reason = end.aborted ? end.aborted.reason : err;
    if (reason instanceof LeaseLostError || reason instanceof JobCancelledError || end.lost) return null;
    if (reason instanceof WorkerShutdownError) return handBackRow(job, worker);
    return failureRow(job, handler, reason, worker, maxSnoozes);
  };
  try {
    return end.ok ? completedRow(job, end.value) : failed(end.value);
  } catch (err) {
    // Looking at what was thrown ran its own code (a proxy trap), which threw: the row is made from that, and when that
    // cannot be looked at either, from an error saying so. Every attempt must end with a row, or its slot never frees.
    try {
      return failed(err);
    } catch {
      return failed(new Error(MESSAGES.unreadableFailure));
    }
  }
}

/** The outcome row of a handler that returned `result`. */
export function completedRow(job: Job, result: unknown): FinishRow {
  const storable = toStorableResult(result);
  if (!storable.ok) {
    return { id: job.id, token: job.leaseToken!, status: JobStatus.COMPLETED, result: null, error: clean(storable.problem) };
  }
  return { id: job.id, token: job.leaseToken!, status: JobStatus.COMPLETED, result: storable.value };
}

/**
 * The row that hands a job back unrun (shutdown, a claim's answer full): ready again, and this attempt does not count.
 * Its run_at stays as it was (it was due, or it could not have been claimed), so it keeps its place among the jobs
 * waiting rather than going behind every job that became due meanwhile.
 */
export function handBackRow(job: Job, worker: string, reason: string = MESSAGES.shuttingDown): FinishRow {
  return {
    id: job.id,
    token: job.leaseToken!,
    status: JobStatus.PENDING,
    delay_ms: null,
    refund: 1,
    entry: entry(job, JobErrorKind.HANDED_BACK, reason, worker),
  };
}

/**
 * Classifies a thrown error into the next state: a control error says it outright; anything else
 * (including a timeout) is a failed attempt, retried with backoff until max_attempts, then DEAD.
 */
export function failureRow(
  job: Job,
  handler: Pick<RegisteredHandler, 'backoff'>,
  err: unknown,
  worker: string,
  maxSnoozes: number,
): FinishRow {
  const base = { id: job.id, token: job.leaseToken! };
  const text = clean(thrownText(err).slice(0, MAX_MESSAGE));
  const stack = thrownStack(err)?.slice(0, MAX_STACK);

  if (err instanceof RetryLaterError) {
    if (job.snoozes >= maxSnoozes) {
      const msg = MESSAGES.snoozeCapReached(maxSnoozes);
      return { ...base, status: JobStatus.DEAD, error: msg, entry: entry(job, JobErrorKind.SNOOZE_CAP, msg, worker) };
    }
    // A time past the calendar PostgreSQL and Date share would be stored as a run_at that reads back as Invalid Date
    // (the API shows null): the job waits until the calendar's last instant instead.
    const runAt = new Date(Math.min(err.runAt.getTime(), LAST_INSTANT));
    return {
      ...base,
      status: JobStatus.RETRYING,
      delay_ms: Math.max(0, runAt.getTime() - Date.now()),
      refund: 1,
      snoozed: 1,
      error: text,
      entry: entry(job, JobErrorKind.RETRY_LATER, text, worker, undefined, runAt),
    };
  }
  if (err instanceof PermanentJobError) {
    return { ...base, status: JobStatus.DEAD, error: text, entry: entry(job, JobErrorKind.PERMANENT, text, worker, stack) };
  }
  if (err instanceof CancelJobError) {
    return { ...base, status: JobStatus.CANCELLED, error: text, entry: entry(job, JobErrorKind.CANCELLED, text, worker) };
  }
  const kind = err instanceof JobTimeoutError ? JobErrorKind.TIMEOUT : JobErrorKind.FAILED;
  if (job.attempts >= job.maxAttempts) {
    return { ...base, status: JobStatus.DEAD, error: text, entry: entry(job, kind, text, worker, stack) };
  }
  return {
    ...base,
    status: JobStatus.RETRYING,
    delay_ms: retryDelayMs(job.attempts, handler.backoff),
    error: text,
    entry: entry(job, kind, text, worker, stack),
  };
}

/** What an outcome row means, for metrics and logs. */
export function outcomeOf(row: FinishRow): JobOutcome {
  switch (row.status) {
    case JobStatus.COMPLETED:
      return 'completed';
    case JobStatus.RETRYING:
      return row.snoozed ? 'snoozed' : 'failed';
    case JobStatus.DEAD:
      return 'dead';
    case JobStatus.CANCELLED:
      return 'cancelled';
    default:
      return 'handed_back';
  }
}

/** Strips what PostgreSQL text cannot hold, so a hostile error message cannot block the batch it is written in. */
function clean(s: string): string {
  // eslint-disable-next-line no-control-regex -- NUL is exactly what must be removed
  return replaceLoneSurrogates(s.replace(/\u0000/g, '\\0'));
}

function entry(job: Job, kind: JobErrorKind, error: string, worker: string, stack?: string, retryAt?: Date): JobErrorEntry {
  return {
    attempt: job.attempts,
    at: new Date().toISOString(),
    kind,
    error,
    worker,
    ...(stack ? { stack: clean(stack) } : {}),
    ...(retryAt ? { retryAt: retryAt.toISOString() } : {}),
  };
}
