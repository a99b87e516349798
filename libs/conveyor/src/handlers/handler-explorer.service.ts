import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { MESSAGES } from '../errors/conveyor.messages';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { CronScheduleDefinition, CronScheduleOptions } from '../config/cron-schedule-options.interface';
import { validateCronSchedule } from '../config/validate-cron-schedule';
import { CronScheduleError } from '../errors/cron-schedule.error';
import { JobHandlerDefinitionError } from '../errors/job-handler-definition.error';
import { JobHandlerDiscovery } from './job-handler.decorator';
import { JobHandlerHost } from './job-handler.host';
import { jobHandlerSettings } from './job-handler-settings';
import { HandlerRegistry } from './handler-registry.service';

/**
 * Finds every provider decorated with @JobHandler at module init and registers it, with the engine
 * defaults applied. A wrong class fails start-up here, with a named error, rather than at first use.
 */
@Injectable()
export class HandlerExplorer implements OnModuleInit {
  private readonly logger = new Logger('Conveyor:Handlers');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly registry: HandlerRegistry,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders({ metadataKey: JobHandlerDiscovery.KEY })) {
      const meta = this.discovery.getMetadataByDecorator(JobHandlerDiscovery, wrapper);
      if (!meta) continue;
      const instance = wrapper.instance as JobHandlerHost | undefined;
      const className = wrapper.metatype?.name ?? String(wrapper.name);
      if (!instance || typeof instance.handle !== 'function') {
        throw new JobHandlerDefinitionError(MESSAGES.handlerWithoutHandle(className, meta.type));
      }
      this.registry.register({
        type: meta.type,
        instance,
        className,
        ...jobHandlerSettings(meta, this.options),
        schedules: handlerSchedules(meta.type, meta.schedules),
      });
    }
    this.logger.log(`Registered job handlers: ${this.registry.types().join(', ') || '(none)'}`);
  }
}

/** A handler's schedules with their syntax checked; a lone schedule is named after the type. */
function handlerSchedules(type: string, schedules: CronScheduleOptions[] | undefined): CronScheduleDefinition[] {
  if (schedules === undefined) return [];
  const field = `@JobHandler('${type}').schedules`;
  if (!Array.isArray(schedules)) throw new CronScheduleError(field, 'must be a list such as [{ cron: "0 3 * * *" }]');
  return schedules.map((s, i) => {
    if (s && typeof s === 'object' && s.name === undefined && schedules.length > 1) {
      throw new CronScheduleError(`${field}[${i}].name`, 'is required when a handler has several schedules');
    }
    // A lone schedule is named after the type; the name is checked like any other.
    const named = s && typeof s === 'object' ? { ...s, name: s.name ?? type } : s;
    validateCronSchedule(named, `${field}[${i}]`, false);
    return { ...named, type };
  });
}
