import { Job } from '../job/job';
import { JobProgress } from '../job/job-progress';

/**
 * What the engine would do with a job after one attempt, as `runJob` classifies it:
 * - `completed`: the handler returned `result` (stored as the job's result);
 * - `retry`: the attempt failed and will be retried after `delayMs` (backoff, jitter included);
 * - `dead`: the attempt failed and it was the last one (or the snooze cap was reached);
 * - `permanent`: the handler threw PermanentJobError (DEAD at once);
 * - `retry-later`: the handler threw RetryLaterError; runs again at `runAt`, the attempt not counted;
 * - `cancelled`: the handler threw CancelJobError.
 */
export type JobRunOutcome<R = unknown> =
  | { kind: 'completed'; result: R }
  | { kind: 'retry'; delayMs: number; error: unknown }
  | { kind: 'dead'; error: unknown }
  | { kind: 'permanent'; error: unknown }
  | { kind: 'retry-later'; runAt: Date; error: unknown }
  | { kind: 'cancelled'; error: unknown };

/** One attempt run by `runJob`: its outcome, the job the handler saw, and how often it called `heartbeat`. */
export type JobRun<P = unknown, R = unknown> = JobRunOutcome<R> & {
  job: Job<P>;
  heartbeats: number;
  /** Every progress report, in order, as it would be stored. */
  progress: JobProgress[];
};
