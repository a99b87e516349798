import { ConveyorConfigError } from './conveyor-config.error';

/**
 * A cron schedule is wrong — bad cron syntax, an unknown time zone, a payload its handler rejects, an
 * unknown job type, a duplicate name. Start-up fails with it; `field` names the schedule's bad field
 * (`schedules[0].cron`, or `@JobHandler('REPORT').schedules[0].cron` for a handler's own schedule).
 */
export class CronScheduleError extends ConveyorConfigError {
  constructor(field: string, problem: string) {
    super(field, problem);
    this.name = 'CronScheduleError';
    this.message = `Invalid cron schedule "${field}": ${problem}`;
  }
}
