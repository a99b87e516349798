import { CronScheduleError, validateConveyorOptions } from '@conveyor/core';
import { envNameFor, loadAppConfig } from './app-config';

/** CRON_SCHEDULES: read as JSON into the engine's `schedules`; a bad schedule names the variable. */
describe('loadAppConfig: CRON_SCHEDULES', () => {
  const nightly = { name: 'nightly-report', type: 'REPORT', cron: '0 3 * * *', timezone: 'Europe/Berlin', payload: { format: 'pdf' } };

  it('reads a JSON list of schedules into the engine options', () => {
    const config = loadAppConfig({ CRON_SCHEDULES: JSON.stringify([nightly]) });
    expect(config.engine.schedules).toEqual([nightly]);
    expect(validateConveyorOptions(config.engine).schedules).toEqual([nightly]);
  });

  it('fails on text that is not JSON, naming CRON_SCHEDULES', () => {
    expect(() => loadAppConfig({ CRON_SCHEDULES: '[{name: nightly}]' })).toThrow(
      /^Invalid environment variable CRON_SCHEDULES: expected JSON/,
    );
  });

  it.each([
    ['bad cron syntax', { ...nightly, cron: '0 3 * *' }, /schedules\[0\]\.cron.*4 fields/],
    ['an out-of-range field', { ...nightly, cron: '61 * * * *' }, /schedules\[0\]\.cron.*0-59/],
    ['an unknown time zone', { ...nightly, timezone: 'Mars/Olympus' }, /schedules\[0\]\.timezone.*Mars\/Olympus/],
    ['a missing type', { name: 'x', cron: '* * * * *' }, /schedules\[0\]\.type/],
    ['an unknown field', { ...nightly, every: '5m' }, /schedules\[0\]\.every/],
    ['a catchUp of 0', { ...nightly, catchUp: 0 }, /schedules\[0\]\.catchUp/],
  ])('refuses %s with a CronScheduleError that maps to CRON_SCHEDULES', (_case, schedule, message) => {
    const config = loadAppConfig({ CRON_SCHEDULES: JSON.stringify([schedule]) });
    let error: unknown;
    try {
      validateConveyorOptions(config.engine);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CronScheduleError);
    expect((error as Error).message).toMatch(message);
    expect((envNameFor(error) as Error).message).toMatch(/^Invalid environment variable CRON_SCHEDULES: /);
  });

  it('refuses two schedules with one name', () => {
    const config = loadAppConfig({ CRON_SCHEDULES: JSON.stringify([nightly, { ...nightly, cron: '0 4 * * *' }]) });
    expect(() => validateConveyorOptions(config.engine)).toThrow(/schedules\[1\]\.name.*nightly-report/);
  });
});
