import { ConveyorConfigError } from '../../errors/conveyor-config.error';
import { checkHttpSettings, HttpSettings } from './http-settings';

describe('checkHttpSettings', () => {
  const check = (settings: unknown) => () => checkHttpSettings(settings as HttpSettings);

  it('takes a body limit from 1024 bytes to 256 MiB, with or without apiDocs', () => {
    expect(check({ bodyLimitBytes: 1024 })).not.toThrow();
    expect(check({ bodyLimitBytes: 268_435_456, apiDocs: false })).not.toThrow();
    expect(check({ bodyLimitBytes: 1_048_576, apiDocs: undefined })).not.toThrow();
  });

  it('refuses a body limit the parser would read as none (NaN, missing) or that a string cannot hold', () => {
    for (const bodyLimitBytes of [Number.NaN, undefined, '1mb', 1023, 1.5, 268_435_457, Infinity]) {
      expect(check({ bodyLimitBytes })).toThrow(
        new ConveyorConfigError('bodyLimitBytes', `must be an integer between 1024 and 268435456, got ${String(bodyLimitBytes)}`),
      );
    }
  });

  it('refuses a setting it does not know, and an apiDocs that is not a boolean', () => {
    expect(check({ bodyLimitBytes: 1024, apidocs: false })).toThrow(
      new ConveyorConfigError('apidocs', 'is not a setting of configureHttp (known: bodyLimitBytes, apiDocs)'),
    );
    expect(check({ bodyLimitBytes: 1024, apiDocs: 'no' })).toThrow(new ConveyorConfigError('apiDocs', 'must be true or false, got no'));
    expect(check(null)).toThrow(new ConveyorConfigError('settings', 'must be an object such as { bodyLimitBytes: 1048576 }'));
  });
});
