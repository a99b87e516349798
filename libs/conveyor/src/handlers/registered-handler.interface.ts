import { BackoffOptions } from '../config/backoff-options.interface';
import { CronScheduleDefinition } from '../config/cron-schedule-options.interface';
import { JobHandlerHost } from './job-handler.host';

/** A handler as the runtime uses it: the instance plus its options with every default applied. */
export interface RegisteredHandler {
  type: string;
  queue: string;
  instance: JobHandlerHost;
  className: string;
  concurrency: number | null;
  maxAttempts: number;
  backoff: BackoffOptions;
  timeoutMs: number;
  payloadClass: (new () => object) | null;
  /** The handler's own recurring jobs, checked (cron syntax) and named (default: the type). */
  schedules: CronScheduleDefinition[];
}
