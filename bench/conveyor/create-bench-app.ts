import { DynamicModule, INestApplication, LogLevel, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConveyorModule, ConveyorOptionsInput } from '@conveyor/core';
import { WorkerHooks } from '../shared/bench-queue.interface';
import { BENCH_HOOKS, BenchNoopHandler } from './bench-noop.handler';

/** Connections of each Conveyor app's pool: apps/server's `DB_POOL_SIZE` default (the floor uses as many). */
export const CONVEYOR_POOL_SIZE = 10;

/** What a benchmark app is made of. */
export interface BenchAppOptions {
  url: string;
  schema: string;
  /** application_name of the pool; the listener and leader connections append their role. */
  appName: string;
  engine: ConveyorOptionsInput;
  hooks: WorkerHooks;
  /** Mount Conveyor's REST API, as apps/server does, on Nest's adapter for this framework. */
  http?: 'express' | 'fastify';
}

/**
 * Builds (without initialising) an app shaped like apps/server's AppModule — TypeORM, ConveyorModule,
 * optionally ConveyorHttpModule with `configureHttp` — with the no-op handler instead of the examples.
 * Creation opens the pool; `init()` (or `listen()`) runs the lifecycle hooks that start the worker.
 */
export async function createBenchApp(options: BenchAppOptions): Promise<INestApplication> {
  @Module({ providers: [{ provide: BENCH_HOOKS, useValue: options.hooks }, BenchNoopHandler] })
  class BenchHandlersModule {}

  const imports: Array<Type<unknown> | DynamicModule> = [
    TypeOrmModule.forRoot({
      type: 'postgres',
      url: options.url,
      schema: options.schema,
      autoLoadEntities: true,
      synchronize: false,
      retryAttempts: 0,
      extra: { max: CONVEYOR_POOL_SIZE, application_name: options.appName },
    }),
    ConveyorModule.forRoot(options.engine),
    BenchHandlersModule,
  ];
  // Loaded only for an app that serves the API: a worker that does not holds none of the HTTP layer's code.
  const http = options.http ? await import('@conveyor/core/http') : null;
  if (http) imports.push(http.ConveyorHttpModule);

  @Module({ imports })
  class BenchAppModule {}

  const settings = { bodyParser: false, logger: ['error', 'warn'] as LogLevel[] };
  const app =
    options.http === 'fastify'
      ? await NestFactory.create(BenchAppModule, new (await import('@nestjs/platform-fastify')).FastifyAdapter(), settings)
      : await NestFactory.create(BenchAppModule, settings);
  if (http) http.configureHttp(app, { bodyLimitBytes: 1024 * 1024 });
  return app;
}
