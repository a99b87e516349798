import { DatabaseUnavailableError } from '../../errors/job-request.errors';
import { connectionErrorText, isConnectionError } from './connection-errors';

describe('connection errors', () => {
  const driver = Object.assign(new Error('unsupported startup parameter: options'), { code: '08P01' });
  const engine = new DatabaseUnavailableError('The job database is unavailable; try again shortly.', { cause: driver });

  it('are recognised through the errors that wrap them', () => {
    expect(isConnectionError(engine)).toBe(true);
    expect(isConnectionError(new Error('syntax error'))).toBe(false);
  });

  it("read with the driver's reason after the engine's message, each message once", () => {
    expect(connectionErrorText(engine)).toBe(
      'The job database is unavailable; try again shortly. (unsupported startup parameter: options)',
    );
    expect(connectionErrorText(driver)).toBe('unsupported startup parameter: options');
    expect(connectionErrorText(new Error('same', { cause: new Error('same') }))).toBe('same');
  });
});
