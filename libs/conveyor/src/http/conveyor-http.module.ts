import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { ConveyorExceptionFilter } from './conveyor-exception.filter';
import { HealthController } from './health.controller';
import { JobsController } from './jobs.controller';
import { QueuesController } from './queues.controller';

/** Conveyor's REST API: jobs, queues and health. Import next to `ConveyorModule.forRoot(...)`. */
@Module({
  imports: [TerminusModule],
  controllers: [JobsController, QueuesController, HealthController],
  providers: [{ provide: APP_FILTER, useClass: ConveyorExceptionFilter }],
})
export class ConveyorHttpModule {}
