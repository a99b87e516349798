import { Inject, Injectable } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { MESSAGES } from '../errors/conveyor.messages';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { CronScheduleError } from '../errors/cron-schedule.error';
import { HandlerRegistry } from '../handlers/handler-registry.service';
import { JobRequestValidator } from '../submission/job-request.validator';
import { CronExpression } from '../config/cron-expression';
import { CronScheduleDefinition } from '../config/cron-schedule-options.interface';

/** A schedule ready to run: its definition with defaults applied and its expression parsed. */
export interface ResolvedSchedule extends CronScheduleDefinition {
  expression: CronExpression;
  payload: unknown;
  catchUp: number;
  /** Where it was declared, for messages: `schedules[0]` or `@JobHandler('REPORT').schedules[0]`. */
  source: string;
}

/** Missed ticks enqueued after a downtime when a schedule does not say (see CronScheduleOptions.catchUp). */
export const DEFAULT_CATCH_UP = 1;

/**
 * Every cron schedule of this instance — the engine options' and the handlers' own — checked against the
 * registered handlers: the job type must exist, the payload must pass the handler's payload class (the same
 * check a submission gets), and names must be unique across both sources, since a name keys a schedule's
 * progress in the database. Each schedule's own fields were already checked where it was declared.
 */
@Injectable()
export class ScheduleRegistry {
  constructor(
    private readonly handlers: HandlerRegistry,
    private readonly validator: JobRequestValidator,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
  ) {}

  /** Throws {@link CronScheduleError} naming the schedule's bad field. */
  resolve(): ResolvedSchedule[] {
    const declared = [
      ...this.options.schedules.map((s, i) => ({ s, source: `schedules[${i}]` })),
      ...this.handlers.all().flatMap((h) => h.schedules.map((s, i) => ({ s, source: `@JobHandler('${h.type}').schedules[${i}]` }))),
    ];
    const names = new Map<string, string>();
    return declared.map(({ s, source }) => {
      const other = names.get(s.name);
      if (other) throw new CronScheduleError(`${source}.name`, `"${s.name}" is also the name of ${other}; schedule names must be unique`);
      names.set(s.name, source);
      if (!this.validator.isKnownType(s.type)) throw new CronScheduleError(`${source}.type`, MESSAGES.unknownType(s.type));
      const payload = s.payload ?? {};
      const problem = this.validator.check({ type: s.type, payload })[0];
      if (problem) throw new CronScheduleError(`${source}.${problem.field}`, problem.problems.join('; '));
      return {
        ...s,
        payload,
        catchUp: s.catchUp ?? DEFAULT_CATCH_UP,
        expression: CronExpression.parse(s.cron, s.timezone ?? 'UTC'),
        source,
      };
    });
  }
}
