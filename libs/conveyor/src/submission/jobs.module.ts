import { Module } from '@nestjs/common';
import { HandlersModule } from '../handlers/handlers.module';
import { BulkActionsService } from './bulk-actions.service';
import { BulkRetryService } from './bulk-retry.service';
import { JobRequestValidator } from './job-request.validator';
import { JobsService } from './jobs.service';
import { QueuesService } from './queues.service';
import { SharedInsertService } from './shared-insert.service';

/** Submitting, reading and steering jobs and queues. */
@Module({
  imports: [HandlersModule],
  providers: [JobRequestValidator, JobsService, QueuesService, BulkRetryService, BulkActionsService, SharedInsertService],
  exports: [JobRequestValidator, JobsService, QueuesService, BulkRetryService, BulkActionsService],
})
export class JobsModule {}
