import { Injectable, InjectableOptions } from '@nestjs/common';
import { SCOPE_OPTIONS_METADATA } from '@nestjs/common/constants';
import { DiscoveryService } from '@nestjs/core';
import { JobHandlerMetadata, JobHandlerOptions } from './job-handler-options.interface';

/** The discoverable decorator the explorer searches for. */
export const JobHandlerDiscovery = DiscoveryService.createDecorator<JobHandlerMetadata>();

/**
 * Marks an injectable class as the handler of one job type. It only records metadata; the
 * HandlerExplorer finds decorated providers at start-up and registers them. A request-scoped handler
 * (`@Injectable({ scope: Scope.REQUEST })`, above or below this) gets a new instance per attempt.
 *
 * ```ts
 * @JobHandler('SEND_EMAIL', { payload: SendEmailPayload, maxAttempts: 8 })
 * export class SendEmailHandler extends JobHandlerHost<SendEmailPayload> { ... }
 * ```
 */
export function JobHandler(type: string, options: JobHandlerOptions = {}): ClassDecorator {
  const discoverable = JobHandlerDiscovery({ ...options, type });
  return (target) => {
    // An @Injectable({ scope }) written below this one has been applied already: keep its scope.
    Injectable(Reflect.getMetadata(SCOPE_OPTIONS_METADATA, target) as InjectableOptions | undefined)(target);
    discoverable(target);
  };
}
