import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { ApiKeyAuthenticator } from './api-key.authenticator';
import { ApiKeyGuard } from './api-key.guard';
import { CONVEYOR_HTTP_SETTINGS } from './conveyor-http.constants';
import { CONVEYOR_HTTP_MODULE_INPUT, ConveyorHttpConfigurableModule } from './conveyor-http.module-definition';
import { ConveyorHttpOptions, ConveyorHttpSettings } from './conveyor-http-options.interface';
import { ConveyorExceptionFilter } from './conveyor-exception.filter';
import { DashboardController } from './dashboard/dashboard.controller';
import { ExternalWorkersController } from './external-workers.controller';
import { HealthController } from './health.controller';
import { JobsController } from './jobs.controller';
import { MetricsController } from './metrics.controller';
import { QueuesController } from './queues.controller';
import { RateLimitGuard } from './rate-limit.guard';
import { validateConveyorHttpOptions } from './validate-conveyor-http-options';

/**
 * Conveyor's REST API: jobs, queues, external workers, health and metrics. Import next to `ConveyorModule.forRoot(...)`, either as
 * is (open, unlimited: for development) or as `ConveyorHttpModule.forRoot({ apiKeys, rateLimit })`.
 *
 * The guards are global, so with keys configured they also cover the host app's own routes: those need
 * an admin key unless marked `@RequiresRole('producer')` or `@Public()`. Closed by default is the safer
 * way to be surprised. The rate-limit guard is registered first, so it runs first.
 */
@Module({
  imports: [TerminusModule],
  controllers: [JobsController, QueuesController, HealthController, MetricsController, ExternalWorkersController, DashboardController],
  providers: [
    {
      provide: CONVEYOR_HTTP_SETTINGS,
      inject: [{ token: CONVEYOR_HTTP_MODULE_INPUT, optional: true }],
      // No input at all is the plain static import, which keeps its historical meaning: no limit either.
      useFactory: (input?: ConveyorHttpOptions): ConveyorHttpSettings =>
        validateConveyorHttpOptions(input ?? { rateLimit: false }),
    },
    ApiKeyAuthenticator,
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_FILTER, useClass: ConveyorExceptionFilter },
  ],
})
export class ConveyorHttpModule extends ConveyorHttpConfigurableModule {}
