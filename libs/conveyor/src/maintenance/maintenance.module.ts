import { Module } from '@nestjs/common';
import { LeaderElection } from './leader-election.service';
import { LeaseSweeper } from './lease-sweeper.service';
import { MaintenanceService } from './maintenance.service';
import { RetentionCleaner } from './retention-cleaner.service';

/** Leader-elected maintenance: lease rescue and retention. */
@Module({
  providers: [LeaderElection, LeaseSweeper, RetentionCleaner, MaintenanceService],
  exports: [LeaderElection, MaintenanceService, LeaseSweeper],
})
export class MaintenanceModule {}
