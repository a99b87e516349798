import { ConsoleLogger, Logger } from '@nestjs/common';
import { inspect } from 'node:util';
import { createConveyorLogger } from './create-conveyor-logger';
import { jobLog } from './job-log-fields';
import { JsonLogger, JsonLoggerOptions } from './json-logger';
import { LogRecord } from './log-record';

const job = { id: '6f1c2f4e-0000-4000-8000-000000000001', type: 'SEND_EMAIL', attempts: 2 };

/** A JsonLogger installed as Nest's logger, and the parsed lines it wrote. */
function capture(options: Omit<JsonLoggerOptions, 'sink'> = {}): { lines: Array<Record<string, unknown>>; raw: string[] } {
  const raw: string[] = [];
  Logger.overrideLogger(new JsonLogger({ ...options, sink: { write: (line: string) => raw.push(line) } }));
  return {
    raw,
    get lines() {
      return raw.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}

describe('JsonLogger', () => {
  afterEach(() => Logger.overrideLogger(new ConsoleLogger()));

  it('writes a job line as one JSON object with the job fields beside time, level, context and msg', () => {
    const out = capture();
    new Logger('Conveyor:Worker').warn(jobLog('Job attempt failed; it will be retried', job, 'host:1:abc', { retryInMs: 50 }));

    expect(out.raw).toHaveLength(1);
    expect(out.raw[0].endsWith('\n')).toBe(true);
    expect(out.raw[0].trimEnd()).not.toContain('\n');
    const [line] = out.lines;
    expect(line).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: 'warn',
      context: 'Conveyor:Worker',
      msg: 'Job attempt failed; it will be retried',
      jobId: job.id,
      type: 'SEND_EMAIL',
      attempt: 2,
      worker: 'host:1:abc',
      retryInMs: 50,
    });
    expect(Object.keys(line).slice(0, 4)).toEqual(['time', 'level', 'context', 'msg']);
  });

  it('writes only the levels at or above its threshold, and Nest log as info', () => {
    const out = capture({ level: 'warn' });
    const logger = new Logger('Test');
    logger.verbose('verbose');
    logger.debug('debug');
    logger.log('log');
    logger.warn('warn');
    logger.error('error');
    logger.fatal('fatal');
    expect(out.lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'warn'],
      ['error', 'error'],
      ['fatal', 'fatal'],
    ]);

    const all = capture({ level: 'verbose' });
    logger.log('hello');
    logger.verbose('details');
    expect(all.lines.map((l) => l.level)).toEqual(['info', 'verbose']);
  });

  it('follows setLogLevels', () => {
    const logger = new JsonLogger({ level: 'verbose', sink: { write: () => undefined } });
    logger.setLogLevels(['error']);
    expect(logger.isLevelEnabled('warn')).toBe(false);
    expect(logger.isLevelEnabled('error')).toBe(true);
  });

  it('reads errors the way Nest passes them: a stack argument, or an Error as the message', () => {
    const out = capture();
    const logger = new Logger('Test');
    const err = new Error('boom');
    logger.error('Outcome batch failed', err.stack);
    logger.error(err);
    logger.error('no stack at all');
    const [withStack, fromError, plain] = out.lines;
    expect(withStack).toMatchObject({ level: 'error', context: 'Test', msg: 'Outcome batch failed', stack: err.stack });
    expect(fromError).toMatchObject({ msg: 'boom', stack: err.stack });
    expect(plain).toEqual({ time: expect.any(String), level: 'error', context: 'Test', msg: 'no stack at all' });
  });

  it('spreads plain objects into fields but never lets a field replace time, level, context or msg', () => {
    const out = capture();
    new Logger('Test').log({ msg: 'from an object', level: 'fatal', time: 'yesterday', count: 3 });
    new Logger('Test').log(new LogRecord('record', { context: 'forged', ok: true }));
    const [fromObject, fromRecord] = out.lines;
    expect(fromObject).toMatchObject({ level: 'info', msg: 'from an object', count: 3 });
    expect(fromObject.time).not.toBe('yesterday');
    expect(fromRecord).toMatchObject({ context: 'Test', msg: 'record', ok: true });
  });

  it('writes values JSON cannot hold instead of throwing', () => {
    const out = capture();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const shared = { n: 1 };
    new Logger('Test').log(new LogRecord('odd values', { big: 10n ** 20n, cyclic, twice: [shared, shared], cause: new TypeError('bad') }));
    expect(out.lines[0]).toMatchObject({
      big: '100000000000000000000',
      cyclic: { name: 'loop', self: '[Circular]' },
      twice: [{ n: 1 }, { n: 1 }],
      cause: { name: 'TypeError', message: 'bad' },
    });
  });
});

describe('LogRecord with the default ConsoleLogger', () => {
  it('renders as one readable line: the message, then key=value pairs, stacks below', () => {
    const record = jobLog('Job is dead', job, 'w1', {
      error: 'Error: no route',
      durationMs: 12,
      stack: 'Error: no route\n    at x (y.ts:1:2)',
    });
    expect(String(record)).toBe(
      `Job is dead jobId=${job.id} type=SEND_EMAIL attempt=2 worker=w1 error="Error: no route" durationMs=12\n  stack: Error: no route\n      at x (y.ts:1:2)`,
    );
    // ConsoleLogger prints a non-string message with util.inspect.
    expect(inspect(record, { colors: true })).toBe(String(record));
  });
});

describe('createConveyorLogger', () => {
  it('is a JsonLogger for json and Nest ConsoleLogger for pretty', () => {
    expect(createConveyorLogger({ format: 'json', level: 'log' })).toBeInstanceOf(JsonLogger);
    const pretty = createConveyorLogger({ format: 'pretty', level: 'warn' }) as ConsoleLogger;
    expect(pretty).toBeInstanceOf(ConsoleLogger);
    expect(pretty.isLevelEnabled('log')).toBe(false);
    expect(pretty.isLevelEnabled('warn')).toBe(true);
  });
});
