import { BackoffOptions } from '../config/backoff-options.interface';
import { CronScheduleDefinition } from '../config/cron-schedule-options.interface';
import { Job } from '../job/job';
import { JobHandlerHost } from './job-handler.host';

/** A handler as the runtime uses it: the instance plus its options with every default applied. */
export interface RegisteredHandler {
  type: string;
  queue: string;
  /** The instance every attempt runs on; null for a request-scoped or transient handler (see `resolve`). */
  instance: JobHandlerHost | null;
  /**
   * A request-scoped or transient handler's instance for one attempt, in a new DI context whose request is the job;
   * null for a handler whose class and dependencies are all singletons.
   */
  resolve: ((job: Job) => Promise<JobHandlerHost>) | null;
  className: string;
  concurrency: number | null;
  maxAttempts: number;
  backoff: BackoffOptions;
  timeoutMs: number;
  payloadClass: (new () => object) | null;
  /** The handler's own recurring jobs, checked (cron syntax) and named (default: the type). */
  schedules: CronScheduleDefinition[];
}
