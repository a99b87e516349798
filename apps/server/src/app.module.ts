import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConveyorModule, isConnectionError } from '@conveyor/core';
import { ConveyorExceptionFilter, ConveyorHttpModule } from '@conveyor/core/http';
import { AppConfig } from './config/app-config';
import { APP_SETTINGS } from './config/app-settings.token';
import { ExampleHandlersModule } from './handlers/example-handlers.module';

/** Makes the service settings injectable everywhere (handlers read SMTP and webhook settings). */
@Global()
@Module({})
class AppSettingsModule {
  static register(config: AppConfig): DynamicModule {
    return { module: AppSettingsModule, providers: [{ provide: APP_SETTINGS, useValue: config.app }], exports: [APP_SETTINGS] };
  }
}

/**
 * The runnable service: TypeORM + the Conveyor engine + its REST API + the example handlers. The library binds its
 * exception filter to its own controllers only; this app is all Conveyor, so every answer, an unknown route's
 * included, takes the same error shape.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    const { app } = config;
    return {
      module: AppModule,
      imports: [
        AppSettingsModule.register(config),
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: app.databaseUrl,
          schema: app.schema,
          autoLoadEntities: true,
          synchronize: false,
          retryAttempts: 10,
          retryDelay: 1000,
          // A database that is not reachable yet may be starting; a wrong password or database name will not improve.
          toRetry: (err: unknown) => isConnectionError(err),
          extra: {
            max: app.poolSize,
            connectionTimeoutMillis: app.poolTimeoutMs,
            application_name: 'conveyor',
            keepAlive: true,
          },
        }),
        ConveyorModule.forRoot(config.engine),
        ConveyorHttpModule.forRoot({
          apiKeys: app.apiKeys,
          rateLimit: app.rateLimitMax > 0 && { windowMs: app.rateLimitWindowMs, max: app.rateLimitMax },
          live: { maxBufferBytes: app.liveMaxBufferBytes, pingIntervalMs: app.livePingIntervalMs },
        }),
        ExampleHandlersModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: ConveyorExceptionFilter }],
    };
  }
}
