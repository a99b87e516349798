import { BackoffOptions } from '../config/backoff-options.interface';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { checkBackoff, checkConcurrency, checkMaxAttempts, checkTimeoutMs, readBackoff } from '../config/option-rules';
import { JobHandlerOptionsError } from '../errors/job-handler-options.error';
import { envelopeProblems } from '../submission/envelope/envelope-problems';
import { SubmitJobEnvelope } from '../submission/envelope/submit-job-envelope';
import { JobHandlerMetadata, JobHandlerOptions } from './job-handler-options.interface';
import { JobHandlerDiscovery } from './job-handler.decorator';
import { RegisteredHandler } from './registered-handler.interface';

/** What the engine runs a handler's jobs with: its decorator's options, the engine's defaults for the rest. */
export type JobHandlerSettings = Pick<
  RegisteredHandler,
  'queue' | 'concurrency' | 'maxAttempts' | 'backoff' | 'timeoutMs' | 'payloadClass'
>;

/** Every option's name; the compiler checks the list against JobHandlerOptions, both ways. */
const OPTION_NAMES: ReadonlySet<string> = new Set(
  Object.keys({
    queue: true,
    concurrency: true,
    maxAttempts: true,
    backoff: true,
    timeout: true,
    payload: true,
    schedules: true,
  } satisfies Record<keyof JobHandlerOptions, true>),
);

/**
 * A handler's settings from its `@JobHandler` options (none: every default), as the worker applies them. Throws
 * JobHandlerOptionsError naming the first bad option: each is held to the rule of what it stands in for — the type
 * and queue to a submission's (every job of the type carries them), the rest to the engine option each overrides.
 */
export function jobHandlerSettings(
  meta: JobHandlerMetadata | undefined,
  engine: Pick<ConveyorOptions, 'defaultMaxAttempts' | 'backoff' | 'defaultTimeoutMs'>,
): JobHandlerSettings {
  const backoff = meta ? checkOptions(meta, engine.backoff) : { ...engine.backoff };
  return {
    queue: meta?.queue ?? 'default',
    concurrency: meta?.concurrency ?? null,
    maxAttempts: meta?.maxAttempts ?? engine.defaultMaxAttempts,
    backoff,
    timeoutMs: meta?.timeout ?? engine.defaultTimeoutMs,
    payloadClass: meta?.payload ?? null,
  };
}

/** Throws for the first bad option; answers the handler's backoff over the engine's. */
function checkOptions(meta: JobHandlerMetadata, engineBackoff: BackoffOptions): BackoffOptions {
  const at = `@JobHandler('${String(meta.type)}')`;
  const unknown = Object.keys(meta).find((key) => key !== 'type' && !OPTION_NAMES.has(key));
  if (unknown) throw new JobHandlerOptionsError(`${at}.${unknown}`, `is not an option of @JobHandler (${[...OPTION_NAMES].join(', ')})`);
  const envelope = Object.assign(new SubmitJobEnvelope(), { type: meta.type, queue: meta.queue, payload: {} });
  const [bad] = envelopeProblems(envelope);
  if (bad) throw new JobHandlerOptionsError(`${at}.${bad.field}`, bad.problems.join('; '));
  if (meta.concurrency !== undefined) checkConcurrency(`${at}.concurrency`, meta.concurrency, JobHandlerOptionsError);
  if (meta.maxAttempts !== undefined) checkMaxAttempts(`${at}.maxAttempts`, meta.maxAttempts, JobHandlerOptionsError);
  if (meta.timeout !== undefined) checkTimeoutMs(`${at}.timeout`, meta.timeout, JobHandlerOptionsError);
  if (meta.payload !== undefined && typeof meta.payload !== 'function') {
    throw new JobHandlerOptionsError(`${at}.payload`, 'must be a class whose class-validator rules the payload must pass');
  }
  const backoff = readBackoff(meta.backoff, engineBackoff, `${at}.backoff`, JobHandlerOptionsError);
  checkBackoff(backoff, `${at}.backoff`, JobHandlerOptionsError);
  return backoff;
}

/** The `@JobHandler` options of a handler's class, if it is decorated. */
export function jobHandlerMetadataOf(handler: object): JobHandlerMetadata | undefined {
  return Reflect.getMetadata(JobHandlerDiscovery.KEY, handler.constructor) as JobHandlerMetadata | undefined;
}
