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
  });
});
