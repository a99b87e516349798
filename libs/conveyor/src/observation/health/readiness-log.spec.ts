import { Logger } from '@nestjs/common';
import { HealthCheckResult } from '@nestjs/terminus';
import { ReadinessLog } from './readiness-log';

const ready: HealthCheckResult = { status: 'ok', info: { database: { status: 'up' } }, error: {}, details: {} };
const down = (checks: Record<string, string>): HealthCheckResult => ({
  status: 'error',
  info: {},
  error: Object.fromEntries(Object.entries(checks).map(([name, message]) => [name, { status: 'down', message }])),
  details: {},
});

describe('ReadinessLog', () => {
  let lines: string[];
  beforeEach(() => {
    lines = [];
    for (const level of ['log', 'warn', 'error'] as const) {
      jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => void lines.push(`${level} ${String(args[0])}`));
    }
  });
  afterEach(() => jest.restoreAllMocks());

  it('logs when readiness changes, not at every probe', () => {
    const log = new ReadinessLog();
    log.record(ready);
    log.record(down({ database: 'connect ECONNREFUSED', migrations: 'cannot tell: connect ECONNREFUSED' }));
    log.record(down({ database: 'Connection terminated', migrations: 'cannot tell: Connection terminated' }));
    log.record(down({ database: 'connect ECONNREFUSED' }));
    log.record(ready);
    log.record(ready);
    expect(lines).toEqual([
      'warn Not ready: database: connect ECONNREFUSED; migrations: cannot tell: connect ECONNREFUSED',
      'warn Not ready: database: connect ECONNREFUSED',
      'log Ready again',
    ]);
  });

  it('logs a readiness down only for shutting down at the normal level', () => {
    const log = new ReadinessLog();
    log.record(down({ worker: 'shutting down' }));
    expect(lines).toEqual(['log Not ready: worker: shutting down']);
  });
});
