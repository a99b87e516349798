import { Module } from '@nestjs/common';
import { HandlersModule } from '../handlers/handlers.module';
import { WorkerModule } from '../worker/worker.module';
import { ExternalWorkers } from './external-workers.service';

/** Claiming and reporting for workers outside this process (served over HTTP by ConveyorHttpModule). */
@Module({
  imports: [HandlersModule, WorkerModule],
  providers: [ExternalWorkers],
  exports: [ExternalWorkers],
})
export class ExternalWorkersModule {}
