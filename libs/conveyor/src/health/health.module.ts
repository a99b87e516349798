import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { SchedulerPollerModule } from '../scheduler/scheduler.module';
import { WorkerModule } from '../worker/worker.module';
import { ConveyorHealthIndicator } from './conveyor-health.indicator';

/** Health indicators for orchestrators (the HTTP endpoints live in ConveyorHttpModule). */
@Module({
  imports: [TerminusModule, WorkerModule, SchedulerPollerModule],
  providers: [ConveyorHealthIndicator],
  exports: [ConveyorHealthIndicator, TerminusModule],
})
export class HealthModule {}
