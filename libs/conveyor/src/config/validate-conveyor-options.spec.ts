import { ConveyorConfigError } from '../errors/conveyor-config.error';
import { ConveyorOptionsInput, validateConveyorOptions } from './validate-conveyor-options';

describe('validateConveyorOptions', () => {
  it('fills in the defaults', () => {
    expect(validateConveyorOptions({ concurrency: 4 })).toMatchObject({ concurrency: 4, claimStrategy: 'skip-locked', migrate: true });
  });

  it('refuses a key that is no option, as a forRootAsync factory could return it', () => {
    const misspelt = { concurrancy: 4 } as ConveyorOptionsInput;
    expect(() => validateConveyorOptions(misspelt)).toThrow(new ConveyorConfigError('concurrancy', 'is not an option of ConveyorModule'));
  });

  it('refuses a misspelt field of backoff, and a name objects merely inherit', () => {
    expect(() => validateConveyorOptions({ backoff: { jiter: 0 } } as ConveyorOptionsInput)).toThrow(
      new ConveyorConfigError('backoff.jiter', 'is not a field of backoff (baseMs, factor, maxMs, jitter)'),
    );
    expect(() => validateConveyorOptions({ toString: () => 'x' } as ConveyorOptionsInput)).toThrow(/"toString"/);
  });

  it.each([5, 'fast', [1000], null])('refuses a backoff that is no object: %j', (backoff) => {
    expect(() => validateConveyorOptions({ backoff } as unknown as ConveyorOptionsInput)).toThrow(
      new ConveyorConfigError('backoff', 'must be an object such as { baseMs: 1000, factor: 2 }'),
    );
  });

  it('takes the default for a field set to undefined, in backoff too', () => {
    expect(validateConveyorOptions({ concurrency: undefined, backoff: { baseMs: undefined, factor: 3 } })).toMatchObject({
      concurrency: 10,
      backoff: { baseMs: 1000, factor: 3 },
    });
  });

  it('says where dataSourceName goes when a factory returns it', () => {
    expect(() => validateConveyorOptions({ dataSourceName: 'jobs' } as ConveyorOptionsInput)).toThrow(/dataSourceName.*beside useFactory/);
  });

  it('refuses a retention that would put its cut-off before the first timestamp PostgreSQL has', () => {
    expect(() => validateConveyorOptions({ retentionCompletedMs: 220_000_000_000_000 })).toThrow(
      new ConveyorConfigError('retentionCompletedMs', 'must be an integer between 0 and 3153600000000, got 220000000000000'),
    );
    expect(validateConveyorOptions({ retentionCompletedMs: 3_153_600_000_000 }).retentionCompletedMs).toBe(3_153_600_000_000);
  });

  it('refuses a queue cap on a name no queue can have, which no job would ever meet', () => {
    expect(() => validateConveyorOptions({ queueConcurrency: { 'emails ': 5 } })).toThrow(
      new ConveyorConfigError('queueConcurrency.emails ', 'is not a queue name: a queue name must be 1-200 of letters, digits, _ . : -'),
    );
    expect(() => validateConveyorOptions({ queueConcurrency: { 'e/mails': 5 } })).toThrow(/"queueConcurrency\.e\/mails"/);
    expect(validateConveyorOptions({ queueConcurrency: { 'tenant-1:emails': 5 } }).queueConcurrency).toEqual({ 'tenant-1:emails': 5 });
  });

  it.each([null, [5], 'emails:5'])('refuses queue caps that are no object: %j', (queueConcurrency) => {
    expect(() => validateConveyorOptions({ queueConcurrency } as unknown as ConveyorOptionsInput)).toThrow(
      new ConveyorConfigError('queueConcurrency', 'must be an object of caps per queue, such as { emails: 5 }'),
    );
  });

  it.each(['', '   ', 'x'.repeat(201)])('refuses a worker id that names no worker: %j', (workerId) => {
    expect(() => validateConveyorOptions({ workerId })).toThrow(
      new ConveyorConfigError('workerId', 'must be a string of at most 200 characters, not only spaces'),
    );
  });

  it.each(['w\u00001', 'w\ud800'])('refuses a worker id PostgreSQL cannot store as sent: %j', (workerId) => {
    expect(() => validateConveyorOptions({ workerId })).toThrow(
      new ConveyorConfigError('workerId', 'must not contain a NUL character or an unpaired UTF-16 surrogate'),
    );
  });
});
