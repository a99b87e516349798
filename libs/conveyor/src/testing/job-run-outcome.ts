import { Job } from '../job/job';
import { JobProgress } from '../job/job-progress';

/**
 * What the engine would do with a job after one attempt, as `runJob` classifies it; `error` is what decided it (what
 * the handler threw, or the abort's reason):
 * - `completed`: the handler returned; `result` is what is stored: its value as JSON gives it back, or null for a value
 *   JSON cannot hold (a BigInt, a cycle), with `lastError` saying why;
 * - `retry`: the attempt failed (a timeout among the reasons) and will be retried after `delayMs` (backoff, jitter
 *   included);
 * - `dead`: the attempt failed and it was the last one (or the snooze cap was reached);
 * - `permanent`: the handler threw PermanentJobError (DEAD at once);
 * - `retry-later`: the handler threw RetryLaterError; runs again at `runAt`, the attempt not counted;
 * - `cancelled`: the handler threw CancelJobError, or the attempt was aborted with JobCancelledError (an operator
 *   cancelled the job);
 * - `handed-back`, `lease-lost`: the attempt was aborted because the worker shut down (the job waits again, the
 *   attempt not counted) or lost its claim (nothing is written; the job runs again once its lease expires).
 */
export type JobRunOutcome<R = unknown> =
  | { kind: 'completed'; result: R; lastError?: string }
  | { kind: 'retry'; delayMs: number; error: unknown }
  | { kind: 'dead'; error: unknown }
  | { kind: 'permanent'; error: unknown }
  | { kind: 'retry-later'; runAt: Date; error: unknown }
  | { kind: 'cancelled'; error: unknown }
  | { kind: 'handed-back'; error: unknown }
  | { kind: 'lease-lost'; error: unknown };

/** One attempt run by `runJob`: its outcome, the job the handler saw, and how often it called `heartbeat`. */
export type JobRun<P = unknown, R = unknown> = JobRunOutcome<R> & {
  job: Job<P>;
  heartbeats: number;
  /** Every progress report, in order, as it would be stored. */
  progress: JobProgress[];
};
