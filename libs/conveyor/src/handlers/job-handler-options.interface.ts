import { BackoffOptions } from '../config/backoff-options.interface';
import { CronScheduleOptions } from '../config/cron-schedule-options.interface';

/** What `@JobHandler(type, options)` accepts. Every field is optional; engine defaults fill the rest. */
export interface JobHandlerOptions {
  /** Queue new jobs of this type go to when the submission names none. Default `default`. */
  queue?: string;
  /** Most jobs of this type running at once in this process. */
  concurrency?: number;
  /** Attempts before the job is DEAD. */
  maxAttempts?: number;
  /** Retry backoff for this type. */
  backoff?: Partial<BackoffOptions>;
  /** Milliseconds an attempt may run before its AbortSignal fires and it fails with a timeout. */
  timeout?: number;
  /** class-validator class the payload must satisfy; checked at submission. */
  payload?: new () => object;
  /**
   * Recurring jobs of this type: each tick enqueues one job, exactly once across all instances.
   * `[{ cron: '0 3 * * *' }]`; see {@link CronScheduleOptions}.
   */
  schedules?: CronScheduleOptions[];
}

/** Metadata the decorator records. */
export interface JobHandlerMetadata extends JobHandlerOptions {
  type: string;
}
