import { BackoffOptions } from '../config/backoff-options.interface';
import { conveyorDefaults } from '../config/conveyor-defaults';
import { PermanentJobError } from '../errors/permanent-job.error';
import { RetryLaterError } from '../errors/retry-later.error';
import { JobContext } from '../handlers/job-context.interface';
import { JobHandlerHost } from '../handlers/job-handler.host';
import { jobHandlerMetadataOf, jobHandlerSettings } from '../handlers/job-handler-settings';
import { Job } from '../job/job';
import { JobProgress } from '../job/job-progress';
import { readJobProgress } from '../consumer/job-progress.reader';
import { JobStatus } from '../job/job-status';
import { failureRow } from '../consumer/outcome-rows';
import { JobRun, JobRunOutcome } from './job-run-outcome';
import { buildTestJob } from './test-job';

/** How `runJob` sets up the attempt. */
export interface RunJobOptions<P> {
  /** Which attempt this is (1 = first); with `maxAttempts`, decides between `retry` and `dead`. Default 1. */
  attempt?: number;
  /** Default: the handler's `@JobHandler` `maxAttempts`, else the engine's `defaultMaxAttempts`. */
  maxAttempts?: number;
  /** Retry backoff used to compute `delayMs`, over the handler's `@JobHandler` `backoff` and the engine's default. */
  backoff?: Partial<BackoffOptions>;
  /** Times the job already asked to run later, against `maxSnoozes`. Default 0. */
  snoozes?: number;
  maxSnoozes?: number;
  /** The attempt's signal; abort it to test how the handler reacts to a timeout or shutdown. */
  signal?: AbortSignal;
  /** Replaces `heartbeat` (e.g. to make it reject as a lost claim would); calls are counted either way. */
  heartbeat?: () => Promise<void>;
  /** Replaces `progress` (e.g. to make it reject as a lost claim would); reports are recorded either way. */
  progress?: (progress: JobProgress) => Promise<void>;
  workerId?: string;
  /** Any other field of the job the handler receives (id, priority...; type and queue default to the decorator's). */
  job?: Partial<Job<P>>;
}

const TEST_WORKER = 'conveyor-testing';

/**
 * Runs one attempt of `handler` on `payload` with a real JobContext and no database, and classifies what
 * happened exactly as the engine's worker does (the same classification code, and the settings of the handler's
 * `@JobHandler` decorator with the engine's defaults), so a test can assert "this input is retried", "that one
 * is given up" without starting Conveyor.
 */
export async function runJob<P, R>(handler: JobHandlerHost<P, R>, payload: P, options: RunJobOptions<P> = {}): Promise<JobRun<P, R>> {
  const defaults = conveyorDefaults();
  const meta = jobHandlerMetadataOf(handler);
  const settings = jobHandlerSettings(meta, defaults);
  const job = buildTestJob(payload, {
    ...(meta ? { type: meta.type } : {}),
    queue: settings.queue,
    attempts: options.attempt ?? 1,
    maxAttempts: options.maxAttempts ?? settings.maxAttempts,
    snoozes: options.snoozes ?? 0,
    lockedBy: options.workerId ?? TEST_WORKER,
    ...options.job,
  });
  let heartbeats = 0;
  const beat = options.heartbeat ?? (() => Promise.resolve());
  const reported: JobProgress[] = [];
  const report = options.progress ?? (() => Promise.resolve());
  const context: JobContext = {
    signal: options.signal ?? new AbortController().signal,
    attempt: job.attempts,
    workerId: options.workerId ?? TEST_WORKER,
    heartbeat: () => {
      heartbeats++;
      return beat();
    },
    progress: async (input) => {
      const progress = readJobProgress(input);
      reported.push(progress);
      return report(progress);
    },
  };
  let outcome: JobRunOutcome<R>;
  try {
    outcome = { kind: 'completed', result: await handler.handle(job, context) };
  } catch (error) {
    outcome = classifyFailure(job, error, { ...settings.backoff, ...options.backoff }, options.maxSnoozes ?? defaults.maxSnoozes);
  }
  return { ...outcome, job, heartbeats, progress: reported };
}

function classifyFailure<R>(job: Job, error: unknown, backoff: BackoffOptions, maxSnoozes: number): JobRunOutcome<R> {
  const row = failureRow(job, { backoff }, error, TEST_WORKER, maxSnoozes);
  switch (row.status) {
    case JobStatus.RETRYING:
      if (error instanceof RetryLaterError && row.snoozed) return { kind: 'retry-later', runAt: error.runAt, error };
      return { kind: 'retry', delayMs: row.delay_ms ?? 0, error };
    case JobStatus.CANCELLED:
      return { kind: 'cancelled', error };
    default:
      return error instanceof PermanentJobError ? { kind: 'permanent', error } : { kind: 'dead', error };
  }
}
