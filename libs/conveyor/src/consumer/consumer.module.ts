import { Module } from '@nestjs/common';
import { HandlersModule } from '../handlers/handlers.module';
import { claimStrategyProvider } from './claiming/claim-strategy.provider';
import { OptimisticClaimStrategy } from './claiming/optimistic.claim-strategy';
import { SkipLockedClaimStrategy } from './claiming/skip-locked.claim-strategy';
import { Completer } from './completer.service';
import { JobExecutor } from './job-executor.service';
import { JobPoller } from './job-poller.service';
import { LeaseKeeper } from './lease-keeper.service';
import { NotificationListener } from './notification-listener.service';
import { WorkerPool } from './worker-pool.service';

/**
 * The consumer pipeline of this process: the poller claims (with the claim strategy chosen by DI) into the worker
 * pool, the executor runs each job through its handler, the completer writes outcomes back in batches, and the
 * lease keeper heartbeats what is held. The notification listener wakes the poller. The local pickup (consumer/local-pickup/),
 * which the job service reaches through its port, is wired in ConveyorModule.
 */
@Module({
  imports: [HandlersModule],
  providers: [
    SkipLockedClaimStrategy,
    OptimisticClaimStrategy,
    claimStrategyProvider,
    JobPoller,
    NotificationListener,
    WorkerPool,
    JobExecutor,
    Completer,
    LeaseKeeper,
  ],
  exports: [
    claimStrategyProvider,
    SkipLockedClaimStrategy,
    OptimisticClaimStrategy,
    JobPoller,
    NotificationListener,
    WorkerPool,
    LeaseKeeper,
    Completer,
  ],
})
export class ConsumerModule {}
