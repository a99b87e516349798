import { Job } from '../job/job';
import { JobContext } from './job-context.interface';

/**
 * Base class of every job handler. Return a JSON-serialisable value to store it as the job's `result`;
 * throw to fail the attempt (retried with backoff), or throw a control error:
 * `RetryLaterError` (run again later without using an attempt), `PermanentJobError` (DEAD now),
 * `CancelJobError` (CANCELLED).
 */
export abstract class JobHandlerHost<P = unknown, R = unknown> {
  abstract handle(job: Job<P>, context: JobContext): Promise<R> | R;
}
