import { CronExpressionParser } from 'cron-parser';

/** Most missed ticks a schedule may catch up on after a downtime (see {@link CronScheduleOptions.catchUp}). */
export const MAX_CATCH_UP = 1000;

/** The ticks a round owes a schedule: the newest `catchUp` in (after, now], oldest first. */
export interface DueTicks {
  ticks: Date[];
  /** True when older missed ticks were left out (more than `catchUp` were due). */
  skipped: boolean;
}

/**
 * A parsed cron expression in its time zone: 5 fields (minute precision) or 6 (a leading seconds field),
 * or an alias such as `@hourly`. Construction throws with cron-parser's reason when the text is not one.
 */
export class CronExpression {
  private constructor(
    readonly text: string,
    readonly timezone: string,
  ) {}

  /** Parses and checks `text`; throws an Error saying what is wrong. */
  static parse(text: string, timezone = 'UTC'): CronExpression {
    if (typeof text !== 'string' || text.trim() === '') throw new Error('must be a cron expression such as "*/5 * * * *"');
    const fields = text.trim().split(/\s+/);
    // cron-parser reads 3 or 4 fields too (filling in the rest); a typo that drops a field should fail instead.
    if (!fields[0].startsWith('@') && fields.length !== 5 && fields.length !== 6) {
      throw new Error(`"${text}" has ${fields.length} fields; expected 5 (minute hour day month weekday) or 6 (with seconds first)`);
    }
    if (!isTimeZone(timezone)) throw new Error(`unknown time zone "${timezone}"; use an IANA name such as "Europe/Berlin"`);
    try {
      CronExpressionParser.parse(text, { tz: timezone }).next();
    } catch (err) {
      throw new Error(`"${text}" is not a valid cron expression: ${(err as Error).message}`);
    }
    return new CronExpression(text.trim(), timezone);
  }

  /** The first tick strictly after `after`. */
  next(after: Date): Date {
    return CronExpressionParser.parse(this.text, { tz: this.timezone, currentDate: after }).next().toDate();
  }

  /**
   * The newest `catchUp` ticks in (after, now], oldest first: the ticks next() gives, which is what a schedule's
   * next tick and its timer follow. Walking back from `now` finds where to start, so a schedule that was down for a
   * year costs about `catchUp` steps, not a year of ticks; the ticks themselves come from walking forward, as prev()
   * and next() disagree across daylight-saving changes (prev() skips a tick in the hour that springs forward, which
   * next() moves to the first valid time, and gives a tick in the hour that falls back twice).
   */
  due(after: Date, now: Date, catchUp: number): DueTicks {
    // prev() is strictly before its start: start 1 ms after `now` so a tick exactly at `now` counts.
    const back = CronExpressionParser.parse(this.text, { tz: this.timezone, currentDate: new Date(now.getTime() + 1) });
    // Two ticks beyond catchUp, for a tick prev() skipped or gave twice.
    let from = after;
    for (let steps = 0; steps < catchUp + 2; steps++) {
      const tick = back.prev().toDate();
      if (tick <= after) {
        from = after;
        break;
      }
      from = new Date(tick.getTime() - 1);
    }
    const forward = CronExpressionParser.parse(this.text, { tz: this.timezone, currentDate: from });
    const ticks: Date[] = [];
    for (let tick = forward.next().toDate(); tick <= now; tick = forward.next().toDate()) ticks.push(tick);
    const olderBeforeFrom = from > after && this.next(after) <= from;
    return { ticks: ticks.slice(-catchUp), skipped: ticks.length > catchUp || olderBeforeFrom };
  }
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return typeof name === 'string' && name.length > 0;
  } catch {
    return false;
  }
}
