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
  /** Reads the zone's offset from UTC (utcOffset); made on first use. */
  private offsets?: Intl.DateTimeFormat;

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
   * The newest `catchUp` ticks in (after, now], oldest first: the ticks of the chain next(after), next(next(after)),
   * …, which is what a schedule's next tick and its timer follow. Walking the chain from `after` costs every tick
   * since then; after a long downtime the walk starts near `now` instead, found by walking back with prev(), so a
   * schedule down for a year costs about `catchUp` steps. Near a daylight-saving change neither prev() nor one
   * iterator's next() agrees with the chain (inside the hour that comes twice they give its second copies, which the
   * chain skips; inside the hour that springs forward, times the chain never reaches): the walk steps with next()
   * from each tick as the chain does, starts off any change, and starts further back while it finds too few ticks.
   */
  due(after: Date, now: Date, catchUp: number): DueTicks {
    let from = this.walkStart(after, now, catchUp);
    for (;;) {
      const ticks: Date[] = [];
      // A next() that does not move forward (cron-parser does so near some zones' changes) ends the walk.
      for (let tick = this.next(from); tick <= now && tick > (ticks.at(-1) ?? from); tick = this.next(tick)) ticks.push(tick);
      if (from <= after || ticks.length > catchUp) return { ticks: ticks.slice(-catchUp), skipped: ticks.length > catchUp };
      // prev() counted ticks the chain does not have: start twice as far back.
      from = this.offChange(new Date(Math.max(after.getTime(), 2 * from.getTime() - now.getTime())), after);
    }
  }

  /** Where due()'s walk starts: `after`, or for a long gap just before the newest catchUp + 2 ticks prev() finds. */
  private walkStart(after: Date, now: Date, catchUp: number): Date {
    // prev() is strictly before its start: start 1 ms after `now` so a tick exactly at `now` counts.
    const back = CronExpressionParser.parse(this.text, { tz: this.timezone, currentDate: new Date(now.getTime() + 1) });
    let from = after;
    for (let steps = 0; steps < catchUp + 2; steps++) {
      const tick = back.prev().toDate();
      if (tick <= after) return after;
      from = new Date(tick.getTime() - 1);
    }
    return this.offChange(from, after);
  }

  /** `from`, or an earlier point where no daylight-saving change is near (never before `after`). */
  private offChange(from: Date, after: Date): Date {
    let point = from;
    while (point > after && this.utcOffset(point) !== this.utcOffset(new Date(point.getTime() - CHANGE_MARGIN_MS))) {
      point = new Date(point.getTime() - CHANGE_MARGIN_MS);
    }
    return point > after ? point : after;
  }

  /** The time zone's offset from UTC at `at`, as text ("GMT-05:00"). */
  private utcOffset(at: Date): string {
    this.offsets ??= new Intl.DateTimeFormat('en-US', { timeZone: this.timezone, timeZoneName: 'longOffset' });
    return this.offsets.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? '';
  }
}

/**
 * As much as any daylight-saving change moves the clocks (two hours at most): a point this long after a change is
 * past the times it skips or repeats, and one that is not moves back before the change in one step.
 */
const CHANGE_MARGIN_MS = 2 * 3_600_000;

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return typeof name === 'string' && name.length > 0;
  } catch {
    return false;
  }
}
