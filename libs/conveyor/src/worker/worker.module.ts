import { Module } from '@nestjs/common';
import { claimStrategyProvider } from '../claiming/claim-strategy.provider';
import { OptimisticClaimStrategy } from '../claiming/optimistic.claim-strategy';
import { SkipLockedClaimStrategy } from '../claiming/skip-locked.claim-strategy';
import { HandlersModule } from '../handlers/handlers.module';
import { Completer } from './completer.service';
import { JobExecutor } from './job-executor.service';
import { LeaseKeeper } from './lease-keeper.service';
import { WorkerPool } from './worker-pool.service';

/** The in-process worker pool with its claim strategies, executor, batched completer and heartbeat. */
@Module({
  imports: [HandlersModule],
  providers: [
    SkipLockedClaimStrategy,
    OptimisticClaimStrategy,
    claimStrategyProvider,
    JobExecutor,
    Completer,
    WorkerPool,
    LeaseKeeper,
  ],
  exports: [claimStrategyProvider, SkipLockedClaimStrategy, OptimisticClaimStrategy, WorkerPool, LeaseKeeper, Completer],
})
export class WorkerModule {}
