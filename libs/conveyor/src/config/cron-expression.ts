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
  /** nextByScan's matchers; made on first use. */
  private scanner?: { days: CronIterator; minutes: CronIterator; seconds: number[] };
  /** nextByScan's last answer: the tick after `after`, which next() also gives for any point before that tick. */
  private lastScan?: { after: Date; tick: Date };

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

  /**
   * The first tick strictly after `after`. Near some daylight-saving changes cron-parser fails (it throws "loop limit
   * exceeded" after a long search, or answers a time that is not after its start, as for Lord Howe's and Chatham's
   * changes): the tick is then found by reading the wall clock (nextByScan). That answer is kept, and given for any
   * point between its start and the tick: a schedule's rounds and timer ask again from later points, and would
   * otherwise pay for cron-parser's failure each time. cron-parser's own answers are not kept: they are cheap, and
   * near a change they differ between points that a kept answer would treat as one.
   */
  next(after: Date): Date {
    const scanned = this.lastScan;
    if (scanned && scanned.after <= after && after < scanned.tick) return scanned.tick;
    let tick: Date | null = null;
    try {
      tick = this.iterator(after).next().toDate();
    } catch {
      // Left to nextByScan, which throws if the expression has no tick at all in reach.
    }
    if (tick && tick > after) return tick;
    tick = this.nextByScan(after);
    this.lastScan = { after, tick };
    return tick;
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
    // A running schedule owes a tick or two: the chain from `after` answers without prev(), which near some changes
    // fails only after seconds of work.
    const near: Date[] = [];
    for (let tick = this.next(after); tick <= now; tick = this.next(tick)) {
      near.push(tick);
      if (near.length > catchUp) break;
    }
    if (near.length <= catchUp) return { ticks: near, skipped: false };
    let from = this.walkStart(after, now, catchUp);
    for (;;) {
      const ticks: Date[] = [];
      for (let tick = this.next(from); tick <= now; tick = this.next(tick)) ticks.push(tick);
      if (from <= after || ticks.length > catchUp) return { ticks: ticks.slice(-catchUp), skipped: ticks.length > catchUp };
      // prev() counted ticks the chain does not have: start twice as far back.
      from = this.offChange(new Date(Math.max(after.getTime(), 2 * from.getTime() - now.getTime())), after);
    }
  }

  /** Where due()'s walk starts: `after`, or for a long gap just before the newest catchUp + 2 ticks prev() finds. */
  private walkStart(after: Date, now: Date, catchUp: number): Date {
    // prev() is strictly before its start: start 1 ms after `now` so a tick exactly at `now` counts.
    const back = this.iterator(new Date(now.getTime() + 1));
    let from = after;
    for (let steps = 0; steps < catchUp + 2; steps++) {
      let tick: Date;
      try {
        tick = back.prev().toDate();
      } catch {
        return after; // cron-parser's prev() fails near some changes too: walk the whole gap instead
      }
      if (tick <= after) return after;
      from = new Date(tick.getTime() - 1);
    }
    return this.offChange(from, after);
  }

  /**
   * next() by reading the zone's wall clock from `after` on: a quarter hour at a time through days the day and month
   * fields rule out, minute by minute through the others, matching each minute against the expression without its
   * seconds and a matching minute against the seconds field. Every zone's offset is whole quarter hours, so a day on
   * the wall clock starts on a quarter hour in UTC, and a minute on the wall clock is a minute in UTC. A year and a day
   * holds a tick of any expression that has one.
   */
  private nextByScan(after: Date): Date {
    const { days, minutes, seconds } = (this.scanner ??= this.makeScanner());
    const start = Math.floor(after.getTime() / MINUTE_MS) * MINUTE_MS;
    for (let minute = start; minute <= start + SCAN_MS;) {
      if (!days.includesDate(new Date(minute))) {
        minute = (Math.floor(minute / QUARTER_HOUR_MS) + 1) * QUARTER_HOUR_MS;
        continue;
      }
      if (minutes.includesDate(new Date(minute))) {
        const second = seconds.find((s) => minute + s * 1000 > after.getTime());
        if (second !== undefined) return new Date(minute + second * 1000);
      }
      minute += MINUTE_MS;
    }
    throw new Error(`"${this.text}" has no tick in ${this.timezone} within a year after ${after.toISOString()}`);
  }

  /**
   * nextByScan's matchers: the expression's day and month fields alone, the expression without its seconds field
   * (matched at each minute's start), and that field's values in order.
   */
  private makeScanner(): { days: CronIterator; minutes: CronIterator; seconds: number[] } {
    const fields = this.iterator(new Date(0)).fields;
    const [, , ...day] = fields.stringify(false).split(' ');
    const days = CronExpressionParser.parse(`* * ${day.join(' ')}`, { tz: this.timezone });
    const minutes = CronExpressionParser.parse(fields.stringify(false), { tz: this.timezone });
    const seconds = [...fields.second.values].map(Number).sort((a, b) => a - b);
    return { days, minutes, seconds };
  }

  private iterator(currentDate: Date): CronIterator {
    return CronExpressionParser.parse(this.text, { tz: this.timezone, currentDate });
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

const MINUTE_MS = 60_000;
const QUARTER_HOUR_MS = 15 * MINUTE_MS;
/** How far nextByScan reads the wall clock: a year and a day. */
const SCAN_MS = 367 * 24 * 3_600_000;

type CronIterator = ReturnType<typeof CronExpressionParser.parse>;

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return typeof name === 'string' && name.length > 0;
  } catch {
    return false;
  }
}
