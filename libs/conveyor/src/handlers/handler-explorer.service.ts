import { Inject, Injectable, Logger, OnModuleInit, Type } from '@nestjs/common';
import { ContextIdFactory, DiscoveryService, ModuleRef } from '@nestjs/core';
import { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { MESSAGES } from '../errors/conveyor.messages';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { CronScheduleDefinition, CronScheduleOptions } from '../config/cron-schedule-options.interface';
import { validateCronSchedule } from '../config/validate-cron-schedule';
import { CronScheduleError } from '../errors/cron-schedule.error';
import { JobHandlerDefinitionError } from '../errors/job-handler-definition.error';
import { Job } from '../job/job';
import { JobHandlerDiscovery } from './job-handler.decorator';
import { JobHandlerMetadata } from './job-handler-options.interface';
import { JobHandlerHost } from './job-handler.host';
import { jobHandlerSettings } from './job-handler-settings';
import { HandlerRegistry } from './handler-registry.service';

/**
 * Finds every provider decorated with @JobHandler at module init and registers it, with the engine
 * defaults applied. A wrong class fails start-up here, with a named error, rather than at first use.
 *
 * A handler that is request-scoped (its class, or a provider it depends on) or transient has no instance to register:
 * Nest only makes one per DI context, or per consumer. As @nestjs/bullmq does for a processor, each attempt then
 * resolves its own instance in a new context, whose request (what `@Inject(REQUEST)` gives) is the job.
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
    const registered = new Set<unknown>();
    // Every provider, not only those Nest files under the decorator's key: it files a provider by its metatype, which
    // for a factory's provider is the factory and for a value's is none.
    for (const wrapper of this.discovery.getProviders()) {
      const handlerClass = decoratedClassOf(wrapper);
      // An alias (useExisting), or another token for an object already registered, is the same handler.
      if (!handlerClass || wrapper.isAlias || registered.has(wrapper.instance)) continue;
      const meta = Reflect.getOwnMetadata(JobHandlerDiscovery.KEY, handlerClass) as JobHandlerMetadata;
      const instance = wrapper.instance as JobHandlerHost | undefined;
      const className = handlerClass.name;
      registered.add(instance);
      if (!instance || typeof instance.handle !== 'function') {
        throw new JobHandlerDefinitionError(MESSAGES.handlerWithoutHandle(className, meta.type));
      }
      const perAttempt = !wrapper.isDependencyTreeStatic() || wrapper.isTransient;
      this.registry.register({
        type: meta.type,
        instance: perAttempt ? null : instance,
        resolve: perAttempt ? attemptInstances(wrapper) : null,
        className,
        ...jobHandlerSettings(meta, this.options),
        schedules: handlerSchedules(meta.type, meta.schedules),
      });
    }
    this.logger.log(`Registered job handlers: ${this.registry.types().join(', ') || '(none)'}`);
  }
}

/**
 * The @JobHandler class of a provider: its metatype, or for a provider made by a factory or given as a value, its
 * instance's class. Undefined when neither is decorated.
 */
function decoratedClassOf(wrapper: InstanceWrapper): Type | undefined {
  const candidates = [wrapper.metatype, (wrapper.instance as object | null | undefined)?.constructor];
  return candidates.find((c): c is Type => typeof c === 'function' && Reflect.hasOwnMetadata(JobHandlerDiscovery.KEY, c));
}

/**
 * Makes a request-scoped or transient handler's instance for one attempt, through its own module: its token may name
 * another provider elsewhere.
 */
function attemptInstances(wrapper: InstanceWrapper): (job: Job) => Promise<JobHandlerHost> {
  const moduleRef = wrapper.host!.providers.get(ModuleRef)!.instance as ModuleRef;
  return (job) => {
    const contextId = ContextIdFactory.create();
    moduleRef.registerRequestByContextId(job, contextId);
    return moduleRef.resolve<unknown, JobHandlerHost>(wrapper.token, contextId, { strict: true });
  };
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
