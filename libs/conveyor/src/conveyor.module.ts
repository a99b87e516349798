import { Module } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from './conveyor.constants';
import { CONVEYOR_MODULE_INPUT, ConveyorConfigurableModule } from './conveyor.module-definition';
import { validateConveyorOptions, ConveyorOptionsInput } from './config/validate-conveyor-options';
import { WorkerConnection } from './database/worker-connection.service';
import { ConveyorDatabase } from './database/conveyor-database.service';
import { CronModule } from './cron/cron.module';
import { ConveyorEvents } from './events/conveyor-events.service';
import { ExternalWorkersModule } from './external-workers/external-workers.module';
import { HandlersModule } from './handlers/handlers.module';
import { HealthModule } from './health/health.module';
import { JobsModule } from './jobs/jobs.module';
import { MaintenanceModule } from './maintenance/maintenance.module';
import { MetricsModule } from './metrics/metrics.module';
import { MigrationRunner } from './migrations/migration-runner.service';
import { MigratorService } from './migrations/migrator.service';
import { LocalPickup } from './scheduler/local-pickup.service';
import { SchedulerPollerModule } from './scheduler/scheduler.module';
import { WorkerModule } from './worker/worker.module';
import { WorkerOrchestrator } from './worker/worker-orchestrator.service';

const core = [ConveyorDatabase, WorkerConnection, ConveyorEvents, LocalPickup, MigratorService];

/** The engine's parts, imported and handed on to the app as they are. */
const engineModules = [
  HandlersModule,
  JobsModule,
  WorkerModule,
  ExternalWorkersModule,
  SchedulerPollerModule,
  MaintenanceModule,
  CronModule,
  HealthModule,
  MetricsModule,
];

/**
 * The Conveyor engine as a dynamic module: import `ConveyorModule.forRoot({...})` next to
 * `TypeOrmModule.forRoot(...)`. It brings the job service, the handler registry, the worker pool with
 * its poller, leader-elected maintenance, the cron timekeeper, health indicators and metrics — but no HTTP
 * routes, so any Nest app can embed it; the REST API is `ConveyorHttpModule`.
 */
@Module({
  imports: [...engineModules],
  providers: [
    { provide: CONVEYOR_OPTIONS, inject: [CONVEYOR_MODULE_INPUT], useFactory: (input: ConveyorOptionsInput) => validateConveyorOptions(input) },
    ...core,
    MigrationRunner,
    WorkerOrchestrator,
  ],
  exports: [
    CONVEYOR_OPTIONS,
    ...core,
    WorkerOrchestrator,
    ...engineModules,
  ],
})
export class ConveyorModule extends ConveyorConfigurableModule {}
