import { DatabaseUnavailableError } from '../../errors/job-request.errors';
import { connectionErrorText, isConnectionError, isReadOnlyError } from './connection-errors';

describe('connection errors', () => {
  const driver = Object.assign(new Error('unsupported startup parameter: options'), { code: '08P01' });
  const engine = new DatabaseUnavailableError('The job database is unavailable; try again shortly.', { cause: driver });

  it('are recognised through the errors that wrap them', () => {
    expect(isConnectionError(engine)).toBe(true);
    expect(isConnectionError(new Error('syntax error'))).toBe(false);
  });

  it('include a database closed to new sessions, as the driver reports it when connecting', () => {
    const closed = Object.assign(new Error('database "jobs" is not currently accepting connections'), { code: '55000', severity: 'FATAL' });
    expect(isConnectionError(closed)).toBe(true);
    expect(
      isConnectionError(Object.assign(new Error('currval of sequence "s" is not yet defined in this session'), { code: '55000' })),
    ).toBe(false);
  });

  it("include a login not let in within the connect timeout, in the words of pg's client and of its pool", () => {
    expect(isConnectionError(new Error('timeout expired'))).toBe(true);
    expect(isConnectionError(new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') }))).toBe(
      true,
    );
    expect(isConnectionError(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isConnectionError(new Error('the lock timeout expired while the row was held'))).toBe(false);
  });

  it("read with the driver's reason after the engine's message, each message once", () => {
    expect(connectionErrorText(engine)).toBe(
      'The job database is unavailable; try again shortly. (unsupported startup parameter: options)',
    );
    expect(connectionErrorText(driver)).toBe('unsupported startup parameter: options');
    expect(connectionErrorText(new Error('same', { cause: new Error('same') }))).toBe('same');
  });

  it("are read through TypeORM's driverError as through a cause, four errors deep at most", () => {
    const readOnly = Object.assign(new Error('cannot execute UPDATE in a read-only transaction'), { code: '25006' });
    const typeorm = Object.assign(new Error('query failed'), { driverError: readOnly });
    expect(isReadOnlyError(new DatabaseUnavailableError('unavailable', { cause: typeorm }))).toBe(true);
    expect(isReadOnlyError(engine)).toBe(false);
    const wrapped = (err: Error, times: number): Error =>
      times === 0 ? err : wrapped(new Error(`wrap ${times}`, { cause: err }), times - 1);
    expect(isConnectionError(wrapped(driver, 3))).toBe(true);
    expect(isConnectionError(wrapped(driver, 4))).toBe(false);
    expect(connectionErrorText(wrapped(readOnly, 2))).toBe('wrap 1 (wrap 2; cannot execute UPDATE in a read-only transaction)');
  });
});
