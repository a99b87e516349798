import { ConveyorConfigError } from '../../errors/conveyor-config.error';
import { ConveyorHttpOptions } from './conveyor-http-options.interface';
import { validateConveyorHttpOptions } from './validate-conveyor-http-options';

/** What a forRootAsync factory may return: TypeScript checks none of it against ConveyorHttpOptions. */
const fromFactory = (options: object): ConveyorHttpOptions => options as ConveyorHttpOptions;

describe('validateConveyorHttpOptions', () => {
  it('refuses a misspelt apiKeys instead of running the API without authentication', () => {
    expect(() => validateConveyorHttpOptions(fromFactory({ apikeys: [{ role: 'admin', key: 'k' }] }))).toThrow(
      new ConveyorConfigError('apikeys', 'is not an option of ConveyorHttpModule (known: apiKeys, rateLimit, live)'),
    );
  });

  it('refuses apiKeys: null instead of running the API without authentication', () => {
    expect(() => validateConveyorHttpOptions(fromFactory({ apiKeys: null }))).toThrow(/"apiKeys"/);
  });

  it('refuses a misspelt field of rateLimit or live instead of taking its default', () => {
    expect(() => validateConveyorHttpOptions(fromFactory({ rateLimit: { window: 1000, max: 10 } }))).toThrow(
      new ConveyorConfigError('rateLimit.window', 'is not an option of ConveyorHttpModule (known: windowMs, max, maxTracked)'),
    );
    expect(() => validateConveyorHttpOptions(fromFactory({ live: { pingInterval: 5000 } }))).toThrow(
      new ConveyorConfigError('live.pingInterval', 'is not an option of ConveyorHttpModule (known: maxBufferBytes, pingIntervalMs)'),
    );
  });

  it('says where path goes when a factory returns it', () => {
    expect(() => validateConveyorHttpOptions(fromFactory({ path: 'jobs-api' }))).toThrow(/"path": goes beside useFactory/);
  });

  it.each([true, 'off', [1]])('refuses a rateLimit that is neither an object nor false: %j', (rateLimit) => {
    expect(() => validateConveyorHttpOptions(fromFactory({ rateLimit }))).toThrow(
      new ConveyorConfigError('rateLimit', 'must be an object such as { windowMs: 60000, max: 6000 }, or false'),
    );
  });

  it('takes the default for a field set to undefined, as the engine options do', () => {
    expect(validateConveyorHttpOptions({ rateLimit: { windowMs: undefined!, max: 5 }, live: { pingIntervalMs: undefined } })).toMatchObject(
      {
        rateLimit: { windowMs: 60_000, max: 5 },
        live: { pingIntervalMs: 15_000 },
      },
    );
  });
});
