/**
 * A recurring job, as a handler declares it: `@JobHandler('REPORT', { schedules: [{ cron: '0 3 * * *' }] })`.
 * Each tick enqueues one job of the handler's type, exactly once across all instances.
 */
export interface CronScheduleOptions {
  /**
   * Unique name of the schedule; it keys the schedule's progress in the database, so renaming it starts
   * the schedule afresh. Default: the job type (a handler with several schedules must name them).
   * Letters, digits and `_ . : -`, at most 200 characters.
   */
  name?: string;
  /**
   * Cron expression: 5 fields (`*\/5 * * * *`, minute precision), 6 with a leading seconds field
   * (`*\/10 * * * * *`), or an alias such as `@hourly`, `@daily`.
   */
  cron: string;
  /** IANA time zone the expression is read in. Default `UTC`. */
  timezone?: string;
  /** Payload of every job this schedule enqueues, checked against the handler's payload class at start-up. Default `{}`. */
  payload?: unknown;
  /**
   * After a downtime (no instance running), how many of the missed ticks are enqueued, newest first; older
   * ones are skipped and logged. Default 1: a schedule that missed ticks runs once, for the latest of them.
   * Between 1 and 1000.
   */
  catchUp?: number;
}

/** A schedule given in the engine options (or the service's `CRON_SCHEDULES`): also names its job type. */
export interface CronScheduleDefinition extends CronScheduleOptions {
  name: string;
  /** Job type to enqueue: a registered handler's or an external type. */
  type: string;
}
