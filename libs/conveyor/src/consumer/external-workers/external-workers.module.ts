import { Module } from '@nestjs/common';
import { HandlersModule } from '../../handlers/handlers.module';
import { ConsumerModule } from '../consumer.module';
import { ExternalWorkers } from './external-workers.service';

/** Claiming and reporting for workers outside this process (served over HTTP by ConveyorHttpModule). */
@Module({
  imports: [HandlersModule, ConsumerModule],
  providers: [ExternalWorkers],
  exports: [ExternalWorkers],
})
export class ExternalWorkersModule {}
