import { ConveyorConfigError } from '../errors/conveyor-config.error';
import { validateConveyorOptions } from './validate-conveyor-options';

describe('pooler options', () => {
  it('default to no pooler and no separate LISTEN URL', () => {
    const options = validateConveyorOptions({});
    expect(options.pooler).toBe('none');
    expect(options.listenUrl).toBeUndefined();
  });

  it('take transaction mode with a direct LISTEN URL', () => {
    const options = validateConveyorOptions({ pooler: 'transaction', listenUrl: 'postgresql://app@db.internal:5432/app' });
    expect(options).toMatchObject({ pooler: 'transaction', listenUrl: 'postgresql://app@db.internal:5432/app' });
  });

  it('name the bad field, and never echo a URL (it may hold a password)', () => {
    expect(() => validateConveyorOptions({ pooler: 'session' as never })).toThrow(
      new ConveyorConfigError('pooler', 'must be one of none, transaction, got "session"'),
    );
    let error: unknown;
    try {
      validateConveyorOptions({ listenUrl: 'db.internal:5432 password=secret' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConveyorConfigError);
    expect((error as ConveyorConfigError).field).toBe('listenUrl');
    expect((error as Error).message).not.toContain('secret');
  });
});
