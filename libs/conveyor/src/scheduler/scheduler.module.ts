import { Module } from '@nestjs/common';
import { WorkerModule } from '../worker/worker.module';
import { JobPoller } from './job-poller.service';
import { NotificationListener } from './notification-listener.service';

/** The scheduler poller: claims on NOTIFY, on due timers, and on a fallback interval. */
@Module({
  imports: [WorkerModule],
  providers: [JobPoller, NotificationListener],
  exports: [JobPoller, NotificationListener],
})
export class SchedulerPollerModule {}
