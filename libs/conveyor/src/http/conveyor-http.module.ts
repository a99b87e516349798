import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ApiKeyAuthenticator } from './access/api-key.authenticator';
import { ApiKeyGuard } from './access/api-key.guard';
import { CONVEYOR_HTTP_MOUNT_PATH, CONVEYOR_HTTP_SETTINGS } from './options/conveyor-http.constants';
import { CONVEYOR_HTTP_MODULE_INPUT, ConveyorHttpConfigurableModule } from './conveyor-http.module-definition';
import { ConveyorHttpOptions, ConveyorHttpSettings } from './options/conveyor-http-options.interface';
import { AccessController } from './controllers/access.controller';
import { DashboardController } from './controllers/dashboard.controller';
import { ExternalWorkersController } from './controllers/external-workers.controller';
import { HealthController } from './controllers/health.controller';
import { InstancesController } from './controllers/instances.controller';
import { JobsController } from './controllers/jobs.controller';
import { JobsBulkController } from './controllers/jobs-bulk.controller';
import { LiveEventsController } from './controllers/live-events.controller';
import { MetricsController } from './controllers/metrics.controller';
import { ApiDocsController } from './controllers/api-docs.controller';
import { ApiDocsService } from './openapi/api-docs.service';
import { QueuesController } from './controllers/queues.controller';
import { SchedulesController } from './controllers/schedules.controller';
import { RateLimitGuard } from './access/rate-limit.guard';
import { validateConveyorHttpOptions } from './options/validate-conveyor-http-options';

/**
 * Conveyor's REST API: jobs, queues, schedules, instances, external workers, health, metrics and the dashboard. Import next to
 * `ConveyorModule.forRoot(...)`, either as is (open, unlimited: for development) or as
 * `ConveyorHttpModule.forRoot({ apiKeys, rateLimit, path })`.
 *
 * Nothing here is global: the rate limit, the API keys and the error format are bound to Conveyor's own
 * controllers (ConveyorRoutes), so the host app's routes, guards, filters and pipes stay its own.
 */
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [
    AccessController,
    JobsBulkController,
    JobsController,
    LiveEventsController,
    QueuesController,
    SchedulesController,
    InstancesController,
    HealthController,
    MetricsController,
    ExternalWorkersController,
    DashboardController,
    ApiDocsController,
  ],
  providers: [
    // No mount path unless forRoot({ path }) gives one (its provider, added after this one, takes its place).
    { provide: CONVEYOR_HTTP_MOUNT_PATH, useValue: '' },
    {
      provide: CONVEYOR_HTTP_SETTINGS,
      inject: [{ token: CONVEYOR_HTTP_MODULE_INPUT, optional: true }],
      // No input at all is the plain static import, which keeps its historical meaning: no limit either.
      useFactory: (input?: ConveyorHttpOptions): ConveyorHttpSettings => validateConveyorHttpOptions(input ?? { rateLimit: false }),
    },
    ApiKeyAuthenticator,
    RateLimitGuard,
    ApiKeyGuard,
    ApiDocsService,
  ],
})
export class ConveyorHttpModule extends ConveyorHttpConfigurableModule {}
