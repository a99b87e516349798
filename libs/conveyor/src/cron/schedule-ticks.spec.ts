import { CronExpression } from '../config/cron-expression';
import { dueTicks, nextTick } from './schedule-ticks';

const at = (iso: string) => new Date(iso);
const iso = (dates: Date[]) => dates.map((d) => d.toISOString());
const everyMinute = CronExpression.parse('* * * * *');

describe('schedule ticks', () => {
  it('a running schedule owes the ticks after its progress mark, by its catch-up rule', () => {
    const progress = { lastTick: at('2030-01-01T00:00:00Z'), paused: false };
    expect(iso(dueTicks(everyMinute, 10, progress, at('2030-01-01T00:03:30Z')).ticks)).toEqual([
      '2030-01-01T00:01:00.000Z',
      '2030-01-01T00:02:00.000Z',
      '2030-01-01T00:03:00.000Z',
    ]);
    expect(dueTicks(everyMinute, 1, progress, at('2030-01-01T00:03:30Z'))).toEqual({
      ticks: [at('2030-01-01T00:03:00Z')],
      skipped: true,
    });
  });

  it('a paused schedule owes no tick, however many fell, and has no next tick', () => {
    const progress = { lastTick: at('2030-01-01T00:00:00Z'), paused: true };
    expect(dueTicks(everyMinute, 1000, progress, at('2030-01-02T00:00:00Z'))).toEqual({ ticks: [], skipped: false });
    expect(nextTick(everyMinute, progress)).toBeNull();
  });

  it('resumed (its mark moved to the resume), it owes only ticks after the resume: no back-fill', () => {
    // Paused at 00:00:30, resumed at 00:05:10: the ticks 00:01 … 00:05 fell while paused.
    const resumed = { lastTick: at('2030-01-01T00:05:10Z'), paused: false };
    expect(nextTick(everyMinute, resumed)).toEqual(at('2030-01-01T00:06:00Z'));
    expect(dueTicks(everyMinute, 1000, resumed, at('2030-01-01T00:05:59Z')).ticks).toEqual([]);
    expect(iso(dueTicks(everyMinute, 1000, resumed, at('2030-01-01T00:06:00Z')).ticks)).toEqual(['2030-01-01T00:06:00.000Z']);
  });

  it('the next tick of a running schedule is the first after its mark, even when already due', () => {
    const seconds = CronExpression.parse('*/10 * * * * *');
    expect(nextTick(seconds, { lastTick: at('2030-01-01T00:00:10Z'), paused: false })).toEqual(at('2030-01-01T00:00:20Z'));
    expect(nextTick(seconds, { lastTick: at('2030-01-01T00:00:12.345Z'), paused: false })).toEqual(at('2030-01-01T00:00:20Z'));
  });
});
