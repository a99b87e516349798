import { Module } from '@nestjs/common';
import { HandlersModule } from '../handlers/handlers.module';
import { JobRequestValidator } from './job-request.validator';
import { JobsService } from './jobs.service';
import { QueuesService } from './queues.service';

/** Submitting, reading and steering jobs and queues. */
@Module({
  imports: [HandlersModule],
  providers: [JobRequestValidator, JobsService, QueuesService],
  exports: [JobRequestValidator, JobsService, QueuesService],
})
export class JobsModule {}
