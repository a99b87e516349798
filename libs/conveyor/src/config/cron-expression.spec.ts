import { CronExpression } from './cron-expression';

const at = (iso: string) => new Date(iso);
const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

describe('CronExpression', () => {
  it('reads 5 fields (minutes), 6 (seconds first) and aliases', () => {
    expect(CronExpression.parse('*/5 * * * *').next(at('2030-01-01T00:02:00Z')).toISOString()).toBe('2030-01-01T00:05:00.000Z');
    expect(CronExpression.parse('*/10 * * * * *').next(at('2030-01-01T00:00:00Z')).toISOString()).toBe('2030-01-01T00:00:10.000Z');
    expect(CronExpression.parse('@hourly').next(at('2030-01-01T00:30:00Z')).toISOString()).toBe('2030-01-01T01:00:00.000Z');
  });

  it('reads the expression in its time zone', () => {
    const berlin = CronExpression.parse('0 3 * * *', 'Europe/Berlin');
    expect(berlin.next(at('2030-01-01T00:00:00Z')).toISOString()).toBe('2030-01-01T02:00:00.000Z');
    expect(berlin.next(at('2030-07-01T00:00:00Z')).toISOString()).toBe('2030-07-01T01:00:00.000Z');
  });

  it.each([
    ['', /cron expression/],
    ['* * * *', /4 fields/],
    ['* * * * * * *', /7 fields/],
    ['61 * * * *', /0-59/],
    ['bogus * * * *', /not a valid cron expression/],
  ])('refuses %j', (text, problem) => {
    expect(() => CronExpression.parse(text)).toThrow(problem);
  });

  it('refuses an unknown time zone', () => {
    expect(() => CronExpression.parse('* * * * *', 'Mars/Olympus')).toThrow(/unknown time zone "Mars\/Olympus"/);
  });

  describe('due ticks', () => {
    const everySecond = CronExpression.parse('* * * * * *');

    it('are the ticks after the last one up to now, a tick at now included, oldest first', () => {
      const { ticks, skipped } = everySecond.due(at('2030-01-01T00:00:00Z'), at('2030-01-01T00:00:03Z'), 10);
      expect(iso(ticks)).toEqual(['2030-01-01T00:00:01.000Z', '2030-01-01T00:00:02.000Z', '2030-01-01T00:00:03.000Z']);
      expect(skipped).toBe(false);
    });

    it('are none before the next tick', () => {
      expect(everySecond.due(at('2030-01-01T00:00:03Z'), at('2030-01-01T00:00:03.999Z'), 10)).toEqual({ ticks: [], skipped: false });
    });

    it('keep only the newest catchUp ticks after a long gap, and say that older ones were skipped', () => {
      const { ticks, skipped } = everySecond.due(at('2030-01-01T00:00:00Z'), at('2030-12-31T00:00:00Z'), 2);
      expect(iso(ticks)).toEqual(['2030-12-30T23:59:59.000Z', '2030-12-31T00:00:00.000Z']);
      expect(skipped).toBe(true);
    });

    it('say nothing was skipped when exactly catchUp ticks were due', () => {
      expect(everySecond.due(at('2030-01-01T00:00:00Z'), at('2030-01-01T00:00:02Z'), 2).skipped).toBe(false);
    });

    it('run a daily job on the day the clocks spring forward, at the first valid time, as next() says', () => {
      // 02:30 does not exist in New York on 2026-03-08: the tick is 03:30 EDT (07:30Z).
      const daily = CronExpression.parse('30 2 * * *', 'America/New_York');
      const lastTick = at('2026-03-07T07:30:00Z');
      expect(daily.next(lastTick).toISOString()).toBe('2026-03-08T07:30:00.000Z');
      expect(iso(daily.due(lastTick, at('2026-03-08T07:30:00Z'), 10).ticks)).toEqual(['2026-03-08T07:30:00.000Z']);
    });

    it('run a daily job once on the day the clocks fall back, as next() says', () => {
      // 01:30 comes twice in New York on 2026-11-01 (05:30Z in EDT, 06:30Z in EST): one tick.
      const daily = CronExpression.parse('30 1 * * *', 'America/New_York');
      expect(iso(daily.due(at('2026-10-31T05:30:00Z'), at('2026-11-01T07:00:00Z'), 10).ticks)).toEqual(['2026-11-01T05:30:00.000Z']);
    });

    /** The chain a schedule follows: next() from each tick, from `after` on. */
    const chain = (cron: CronExpression, after: Date, now: Date) => {
      const ticks: Date[] = [];
      for (let tick = cron.next(after); tick <= now; tick = cron.next(tick)) ticks.push(tick);
      return ticks;
    };

    it.each([
      ['*/15 1 * * *', 'America/New_York'],
      ['* 1 * * *', 'America/New_York'],
      ['30 2 * * *', 'Europe/Berlin'],
      ['*/30 * 2 * * *', 'America/New_York'],
      ['@hourly', 'Australia/Lord_Howe'],
    ])('of %j in %s, for any gap and catchUp near the changes of 2026, are the newest ticks of the chain', (text, zone) => {
      const cron = CronExpression.parse(text, zone);
      const changes = [
        '2026-03-08T07:00:00Z',
        '2026-11-01T06:00:00Z',
        '2026-03-29T01:00:00Z',
        '2026-10-25T01:00:00Z',
        '2026-04-05T00:00:00Z',
      ];
      let seed = 1;
      const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
      for (let i = 0; i < 80; i++) {
        // `now` within three hours of a change, the last tick up to five hours before it, catchUp 1 to 4.
        const now = new Date(Date.parse(changes[i % changes.length]) + Math.round((random() * 6 - 3) * 3600) * 1000);
        const after = new Date(now.getTime() - Math.round(random() * 300) * 60_000);
        const catchUp = 1 + Math.floor(random() * 4);
        const owed = chain(cron, after, now);
        expect({ after, now, catchUp, ...cron.due(after, now, catchUp) }).toEqual({
          after,
          now,
          catchUp,
          ticks: owed.slice(-catchUp),
          skipped: owed.length > catchUp,
        });
      }
    });

    it('go on where cron-parser steps backwards (Chatham, at its April change), as the chain does elsewhere', () => {
      // 02:45 to 03:45 comes twice (13:00Z to 14:00Z, then 14:00Z to 15:00Z): the second copies are not ticks.
      const cron = CronExpression.parse('*/15 * * * *', 'Pacific/Chatham');
      const { ticks } = cron.due(at('2026-04-04T12:50:00Z'), at('2026-04-04T15:20:00Z'), 1000);
      expect(iso(ticks)).toEqual([
        '2026-04-04T13:00:00.000Z',
        '2026-04-04T13:15:00.000Z',
        '2026-04-04T13:30:00.000Z',
        '2026-04-04T13:45:00.000Z',
        '2026-04-04T15:00:00.000Z',
        '2026-04-04T15:15:00.000Z',
      ]);
    });
  });

  describe('where cron-parser throws (Lord Howe, whose clocks go back half an hour at 2026-04-04T15:00Z)', () => {
    it('next() finds the tick after the change, from a tick a day before it', () => {
      const daily = CronExpression.parse('0 3 * * *', 'Australia/Lord_Howe');
      expect(daily.next(at('2026-04-03T16:00:00Z')).toISOString()).toBe('2026-04-04T16:30:00.000Z');
      expect(iso(daily.due(at('2026-04-03T16:00:00Z'), at('2026-04-04T17:00:00Z'), 5).ticks)).toEqual(['2026-04-04T16:30:00.000Z']);
    });

    it('next() finds a weekly tick days away, and due() the ticks after it', () => {
      const weekly = CronExpression.parse('0 3 * * 0', 'Australia/Lord_Howe');
      expect(weekly.next(at('2026-03-28T16:00:00Z')).toISOString()).toBe('2026-04-04T16:30:00.000Z');
      expect(weekly.due(at('2026-03-28T16:00:00Z'), at('2026-04-12T17:00:00Z'), 5)).toEqual({
        ticks: [at('2026-04-04T16:30:00Z'), at('2026-04-11T16:30:00Z')],
        skipped: false,
      });
    });

    it('next() reads the seconds field as well', () => {
      const cron = CronExpression.parse('*/20 0 */2 * * *', 'Australia/Lord_Howe');
      const chain = [cron.next(at('2026-04-04T13:00:00Z'))];
      while (chain.length < 4) chain.push(cron.next(chain[chain.length - 1]));
      expect(iso(chain)).toEqual([
        '2026-04-04T13:00:20.000Z',
        '2026-04-04T13:00:40.000Z',
        '2026-04-04T15:30:00.000Z',
        '2026-04-04T15:30:20.000Z',
      ]);
    });

    it('due() walks a long gap ending where prev() throws (October change)', () => {
      const cron = CronExpression.parse('0 */2 * * *', 'Australia/Lord_Howe');
      // prev() throws from 16:59:59Z back to the change; the chain goes from 00:00 (13:30Z) to 04:00 (17:00Z).
      const { ticks, skipped } = cron.due(at('2026-09-30T00:00:00Z'), at('2026-10-03T17:30:00Z'), 2);
      expect({ ticks: iso(ticks), skipped }).toEqual({ ticks: ['2026-10-03T13:30:00.000Z', '2026-10-03T17:00:00.000Z'], skipped: true });
    });
    it('enqueue no stray tick in the hour that comes twice, a round a minute taking one tick at most', () => {
      const cron = CronExpression.parse('*/15 1 * * *', 'America/New_York');
      const start = at('2026-11-01T03:00:30Z');
      const enqueued: Date[] = [];
      let last = start;
      for (let minute = 0; minute < 300; minute++) {
        const { ticks } = cron.due(last, new Date(start.getTime() + minute * 60_000), 1);
        enqueued.push(...ticks);
        if (ticks.length > 0) last = ticks[ticks.length - 1];
      }
      expect(iso(enqueued)).toEqual([
        '2026-11-01T05:00:00.000Z',
        '2026-11-01T05:15:00.000Z',
        '2026-11-01T05:30:00.000Z',
        '2026-11-01T05:45:00.000Z',
      ]);
    });
  });
});
