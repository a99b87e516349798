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
  private scanner?: { minutes: CronIterator; seconds: number[] };
  /** next()'s last answer: the tick after `after`, which is also the answer from any point before that tick. */
  private lastNext?: { after: Date; tick: Date };

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
   * exceeded" after about half a second of work, or answers a time that is not after its start, as for Lord Howe's and
   * Chatham's changes): the tick is then found by reading the wall clock minute by minute (nextByScan). The last answer
   * is kept, since every point between a start and its answer has the same answer: a schedule's rounds and its timer
   * ask again from later points, and would otherwise pay for each failure again.
   */
  next(after: Date): Date {
    const last = this.lastNext;
    if (last && last.after <= after && after < last.tick) return last.tick;
    let tick: Date | null = null;
    try {
      tick = this.iterator(after).next().toDate();
    } catch {
      // Left to nextByScan, which throws if the expression has no tick at all in reach.
    }
    if (!tick || tick <= after) tick = this.nextByScan(after);
    this.lastNext = { after, tick };
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
   * next() by reading the zone's wall clock: each minute from `after` on is matched against the minute, hour, day and
   * month fields, and a matching minute against the seconds field. Every zone's offset is whole minutes, so a minute
   * on the wall clock is a minute in UTC. The scan covers SCAN_MS, more than any stretch where cron-parser was seen to
   * fail; a tick further off is cron-parser's answer from the end of the scan.
   */
  private nextByScan(after: Date): Date {
    const { minutes, seconds } = (this.scanner ??= this.makeScanner());
    const start = Math.floor(after.getTime() / 60_000) * 60_000;
    for (let minute = start; minute <= start + SCAN_MS; minute += 60_000) {
      if (!minutes.includesDate(new Date(minute))) continue;
      const second = seconds.find((s) => minute + s * 1000 > after.getTime());
      if (second !== undefined) return new Date(minute + second * 1000);
    }
    const end = new Date(start + SCAN_MS);
    const tick = this.iterator(end).next().toDate();
    if (tick <= end) throw new Error(`cron-parser finds no tick of "${this.text}" (${this.timezone}) after ${end.toISOString()}`);
    return tick;
  }

  /** The expression without its seconds field (matched at each minute's start), and that field's values in order. */
  private makeScanner(): { minutes: CronIterator; seconds: number[] } {
    const fields = this.text.split(/\s+/);
    const withSeconds = fields.length === 6;
    const minutes = CronExpressionParser.parse(withSeconds ? fields.slice(1).join(' ') : this.text, { tz: this.timezone });
    const seconds = withSeconds ? [...this.iterator(new Date(0)).fields.second.values].map(Number).sort((a, b) => a - b) : [0];
    return { minutes, seconds };
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

/** How far nextByScan reads the wall clock minute by minute (2,880 minutes: some 20 ms). */
const SCAN_MS = 2 * 24 * 3_600_000;

type CronIterator = ReturnType<typeof CronExpressionParser.parse>;

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return typeof name === 'string' && name.length > 0;
  } catch {
    return false;
  }
}
