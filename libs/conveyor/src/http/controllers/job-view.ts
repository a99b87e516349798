import { Job } from '../../job/job';

/**
 * A job as the REST API answers it: every field of the stored job but its lease token. The token fences the
 * outcome of the current attempt, so it goes to the worker whose claim made it (the claim's answer, see
 * ExternalWorkersController) and to no one who merely reads jobs: a key that may read jobs could otherwise
 * report the outcome of another worker's attempt.
 */
export type JobView<P = unknown, R = unknown> = Omit<Job<P, R>, 'leaseToken'>;

/**
 * The answer shape of a job. The fields are named one by one rather than copied with a rest spread, so a
 * field added to the job later stays out of the answers until it is added here (and to JobDto; test/types
 * fails until both agree, and until the client's `Job` does).
 */
export function toJobView<P, R>(job: Job<P, R>): JobView<P, R> {
  return {
    id: job.id,
    seq: job.seq,
    queue: job.queue,
    type: job.type,
    payload: job.payload,
    status: job.status,
    priority: job.priority,
    runAt: job.runAt,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    snoozes: job.snoozes,
    lastError: job.lastError,
    result: job.result,
    errors: job.errors,
    idempotencyKey: job.idempotencyKey,
    uniqueKey: job.uniqueKey,
    lockedBy: job.lockedBy,
    lockedUntil: job.lockedUntil,
    version: job.version,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    progress: job.progress,
  };
}
