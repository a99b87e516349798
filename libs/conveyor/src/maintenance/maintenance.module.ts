import { Module } from '@nestjs/common';
import { ConsumerModule } from '../consumer/consumer.module';
import { HandlersModule } from '../handlers/handlers.module';
import { InstanceRegistry } from './instance-registry.service';
import { LeaderElection } from './leader-election.service';
import { LeaseSweeper } from './lease-sweeper.service';
import { MaintenanceService } from './maintenance.service';
import { RetentionCleaner } from './retention-cleaner.service';

/** Leader-elected maintenance (lease rescue, retention, dead instances' rows) and every instance's heartbeat. */
@Module({
  imports: [ConsumerModule, HandlersModule],
  providers: [LeaderElection, LeaseSweeper, RetentionCleaner, InstanceRegistry, MaintenanceService],
  exports: [LeaderElection, MaintenanceService, LeaseSweeper, InstanceRegistry],
})
export class MaintenanceModule {}
