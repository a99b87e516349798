import { Module } from '@nestjs/common';
import { HandlersModule } from '../handlers/handlers.module';
import { JobsModule } from '../submission/jobs.module';
import { CronScheduler } from './cron-scheduler.service';
import { ScheduleControl } from './schedule-control.service';
import { ScheduleRegistry } from './schedule-registry.service';

/**
 * Recurring jobs from cron expressions: the schedules (options and handlers), the timekeeper that enqueues them, and
 * the control that pauses, resumes and triggers them.
 */
@Module({
  imports: [HandlersModule, JobsModule],
  providers: [ScheduleRegistry, CronScheduler, ScheduleControl],
  exports: [ScheduleRegistry, CronScheduler, ScheduleControl],
})
export class CronModule {}
