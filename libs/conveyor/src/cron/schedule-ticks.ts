import { CronExpression, DueTicks } from '../config/cron-expression';

/** A schedule's stored progress: the newest tick accounted for, and whether it is paused. */
export interface ScheduleProgress {
  /** Ticks up to here were enqueued, skipped by the catch-up rule, or fell while the schedule was paused. */
  lastTick: Date;
  paused: boolean;
}

/**
 * The ticks a round owes a schedule. A paused schedule owes none. Resuming moves `lastTick` to the moment of the
 * resume (storage/statements/schedule-set-paused.sql.ts), so the ticks that fell while it was paused are not owed
 * afterwards either: pausing skips ticks, it does not postpone them. Ticks missed while no instance ran are another
 * matter — nobody chose to skip them — and the schedule's `catchUp` rule decides how many of those are enqueued.
 */
export function dueTicks(expression: CronExpression, catchUp: number, progress: ScheduleProgress, now: Date): DueTicks {
  if (progress.paused) return { ticks: [], skipped: false };
  return expression.due(progress.lastTick, now, catchUp);
}

/**
 * The next tick the schedule will enqueue: the first after its progress mark, or null while it is paused (resuming
 * starts from the first tick after the resume). A tick already due is returned as it is, in the past: the next round
 * enqueues it.
 */
export function nextTick(expression: CronExpression, progress: ScheduleProgress): Date | null {
  return progress.paused ? null : expression.next(progress.lastTick);
}

/**
 * What a schedule's row records as the definition its ticks follow (the `cron` column): the expression, preceded by
 * its time zone in crontab's `TZ=` form unless that is UTC, so rows written before the time zone was recorded still
 * match a UTC schedule. Ticks depend on nothing else of a schedule.
 */
export function scheduleDefinition(expression: CronExpression): string {
  return expression.timezone === 'UTC' ? expression.text : `TZ=${expression.timezone} ${expression.text}`;
}
