import { ConveyorOptions } from '../config/conveyor-options.interface';
import { JobHandlerMetadata } from './job-handler-options.interface';
import { JobHandlerDiscovery } from './job-handler.decorator';
import { RegisteredHandler } from './registered-handler.interface';

/** What the engine runs a handler's jobs with: its decorator's options, the engine's defaults for the rest. */
export type JobHandlerSettings = Pick<
  RegisteredHandler,
  'queue' | 'concurrency' | 'maxAttempts' | 'backoff' | 'timeoutMs' | 'payloadClass'
>;

/** A handler's settings from its `@JobHandler` options (none: every default), as the worker applies them. */
export function jobHandlerSettings(
  meta: JobHandlerMetadata | undefined,
  engine: Pick<ConveyorOptions, 'defaultMaxAttempts' | 'backoff' | 'defaultTimeoutMs'>,
): JobHandlerSettings {
  return {
    queue: meta?.queue ?? 'default',
    concurrency: meta?.concurrency ?? null,
    maxAttempts: meta?.maxAttempts ?? engine.defaultMaxAttempts,
    backoff: { ...engine.backoff, ...(meta?.backoff ?? {}) },
    timeoutMs: meta?.timeout ?? engine.defaultTimeoutMs,
    payloadClass: meta?.payload ?? null,
  };
}

/** The `@JobHandler` options of a handler's class, if it is decorated. */
export function jobHandlerMetadataOf(handler: object): JobHandlerMetadata | undefined {
  return Reflect.getMetadata(JobHandlerDiscovery.KEY, handler.constructor) as JobHandlerMetadata | undefined;
}
