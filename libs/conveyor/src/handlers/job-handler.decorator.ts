import { applyDecorators, Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { JobHandlerMetadata, JobHandlerOptions } from './job-handler-options.interface';

/** The discoverable decorator the explorer searches for. */
export const JobHandlerDiscovery = DiscoveryService.createDecorator<JobHandlerMetadata>();

/**
 * Marks an injectable class as the handler of one job type. It only records metadata; the
 * HandlerExplorer finds decorated providers at start-up and registers them.
 *
 * ```ts
 * @JobHandler('SEND_EMAIL', { payload: SendEmailPayload, maxAttempts: 8 })
 * export class SendEmailHandler extends JobHandlerHost<SendEmailPayload> { ... }
 * ```
 */
export function JobHandler(type: string, options: JobHandlerOptions = {}): ClassDecorator {
  return applyDecorators(Injectable(), JobHandlerDiscovery({ ...options, type }));
}
