import { Module } from '@nestjs/common';
import { HandlersModule } from '../handlers/handlers.module';
import { JobsModule } from '../submission/jobs.module';
import { CronScheduler } from './cron-scheduler.service';
import { ScheduleRegistry } from './schedule-registry.service';

/** Recurring jobs from cron expressions: the schedules (options and handlers) and the timekeeper that enqueues them. */
@Module({
  imports: [HandlersModule, JobsModule],
  providers: [ScheduleRegistry, CronScheduler],
  exports: [ScheduleRegistry, CronScheduler],
})
export class CronModule {}
