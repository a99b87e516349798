import { Module } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from './config/conveyor.constants';
import { CONVEYOR_MODULE_INPUT, ConveyorConfigurableModule } from './conveyor.module-definition';
import { validateConveyorOptions, ConveyorOptionsInput } from './config/validate-conveyor-options';
import { WorkerConnection } from './storage/connections/worker-connection.service';
import { ConveyorDatabase } from './storage/connections/conveyor-database.service';
import { DatabaseClock } from './storage/connections/database-clock.service';
import { DatabaseOutages } from './storage/connections/database-outages.service';
import { ConsumerModule } from './consumer/consumer.module';
import { CronModule } from './cron/cron.module';
import { ConveyorEvents } from './observation/events/conveyor-events.service';
import { ExternalWorkersModule } from './consumer/external-workers/external-workers.module';
import { HandlersModule } from './handlers/handlers.module';
import { HealthModule } from './observation/health/health.module';
import { JobsModule } from './submission/jobs.module';
import { MaintenanceModule } from './maintenance/maintenance.module';
import { MetricsModule } from './observation/metrics/metrics.module';
import { LiveFeedModule } from './observation/live-feed/live-feed.module';
import { MigrationRunner } from './storage/migrations/migration-runner.service';
import { MigratorService } from './storage/migrations/migrator.service';
import { ClaimTrigger } from './consumer/claim-trigger';
import { LocalPickupService } from './consumer/local-pickup/local-pickup.service';
import { PICKUP_HOOKS } from './consumer/pickup-hooks';
import { LOCAL_PICKUP } from './submission/local-pickup.port';
import { WorkerOrchestrator } from './worker-orchestrator.service';
import { LivePublisher } from './observation/live/live-publisher.service';
import { LiveWatchDetector } from './observation/live/live-watch-detector.service';

/**
 * Shared by the engine's modules. The ClaimTrigger is here because maintenance calls it as well as the consumer. The
 * local pickup is bound here to both of its ports: LOCAL_PICKUP, which the job service hands its inserts to, and
 * PICKUP_HOOKS, through which the poller and the notification listener reach it. The live publisher is here because
 * every writer (submission, consumer, maintenance, cron) announces its changes through it.
 */
const core = [
  ConveyorDatabase,
  DatabaseClock,
  DatabaseOutages,
  WorkerConnection,
  ConveyorEvents,
  ClaimTrigger,
  LocalPickupService,
  { provide: LOCAL_PICKUP, useExisting: LocalPickupService },
  { provide: PICKUP_HOOKS, useExisting: LocalPickupService },
  MigratorService,
  LiveWatchDetector,
  LivePublisher,
];

/** The engine's parts, imported and handed on to the app as they are. */
const engineModules = [
  HandlersModule,
  JobsModule,
  ConsumerModule,
  ExternalWorkersModule,
  MaintenanceModule,
  CronModule,
  HealthModule,
  MetricsModule,
  LiveFeedModule,
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
    {
      provide: CONVEYOR_OPTIONS,
      inject: [CONVEYOR_MODULE_INPUT],
      useFactory: (input: ConveyorOptionsInput) => validateConveyorOptions(input),
    },
    ...core,
    MigrationRunner,
    WorkerOrchestrator,
  ],
  exports: [CONVEYOR_OPTIONS, ...core, WorkerOrchestrator, ...engineModules],
})
export class ConveyorModule extends ConveyorConfigurableModule {}
