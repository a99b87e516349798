import { Module } from '@nestjs/common';
import { HandlersModule } from '../handlers/handlers.module';
import { BulkRetryService } from './bulk-retry.service';
import { JobRequestValidator } from './job-request.validator';
import { JobsService } from './jobs.service';
import { QueuesService } from './queues.service';
import { SharedInsertService } from './shared-insert.service';

/** Submitting, reading and steering jobs and queues. */
@Module({
  imports: [HandlersModule],
  providers: [JobRequestValidator, JobsService, QueuesService, BulkRetryService, SharedInsertService],
  exports: [JobRequestValidator, JobsService, QueuesService, BulkRetryService],
})
export class JobsModule {}
