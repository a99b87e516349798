import { conveyorDefaults } from '../config/conveyor-defaults';
import { JobHandlerOptionsError } from '../errors/job-handler-options.error';
import { JobHandlerMetadata } from './job-handler-options.interface';
import { jobHandlerSettings } from './job-handler-settings';

const engine = conveyorDefaults();
const settingsOf = (meta: Partial<JobHandlerMetadata>) => jobHandlerSettings({ type: 'SEND_EMAIL', ...meta } as JobHandlerMetadata, engine);

describe('jobHandlerSettings', () => {
  it.each([
    [{ concurrency: 0 }, "@JobHandler('SEND_EMAIL').concurrency", 'must be an integer between 1 and 10000, got 0'],
    [{ concurrency: 1.5 }, "@JobHandler('SEND_EMAIL').concurrency", 'must be an integer between 1 and 10000, got 1.5'],
    [{ maxAttempts: 0 }, "@JobHandler('SEND_EMAIL').maxAttempts", 'must be an integer between 1 and 1000, got 0'],
    [{ timeout: 2 ** 31 }, "@JobHandler('SEND_EMAIL').timeout", 'must be an integer between 1 and 86400000, got 2147483648'],
    [{ timeout: 0 }, "@JobHandler('SEND_EMAIL').timeout", 'must be an integer between 1 and 86400000, got 0'],
    [{ backoff: { baseMs: -1 } }, "@JobHandler('SEND_EMAIL').backoff.baseMs", 'must be an integer between 0 and 86400000, got -1'],
    [{ backoff: { factor: 0.5 } }, "@JobHandler('SEND_EMAIL').backoff.factor", 'must be a number between 1 and 100'],
    [{ backoff: { base: 10 } }, "@JobHandler('SEND_EMAIL').backoff.base", 'is not a field of backoff (baseMs, factor, maxMs, jitter)'],
    [{ queue: 'billing queue/eu' }, "@JobHandler('SEND_EMAIL').queue", 'queue may contain only letters, digits, _ . : -'],
    [
      { queue: '' },
      "@JobHandler('SEND_EMAIL').queue",
      'queue may contain only letters, digits, _ . : -; queue must be longer than or equal to 1 characters',
    ],
    [
      { timeoutMs: 5000 },
      "@JobHandler('SEND_EMAIL').timeoutMs",
      'is not an option of @JobHandler (queue, concurrency, maxAttempts, backoff, timeout, payload, schedules)',
    ],
  ])('refuses %j, naming the option', (options, field, problem) => {
    const refused = () => settingsOf(options as Partial<JobHandlerMetadata>);
    expect(refused).toThrow(JobHandlerOptionsError);
    expect(refused).toThrow(new JobHandlerOptionsError(field, problem));
  });

  it('refuses a type a submission could not name, as POST /jobs does', () => {
    expect(() => settingsOf({ type: '' })).toThrow(
      new JobHandlerOptionsError("@JobHandler('').type", 'type must be longer than or equal to 1 characters'),
    );
    expect(() => settingsOf({ type: 'T'.repeat(201) })).toThrow(/\.type": type must be shorter than or equal to 200 characters/);
    expect(() => settingsOf({ type: 'A\u0000B' })).toThrow(/\.type": contains a NUL character/);
  });
});
