import { DynamicModule, INestApplication, LogLevel, Module, Provider, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { ConveyorModule, ConveyorOptionsInput, JobsService } from '@conveyor/core';
import { ConveyorDatabase } from '@conveyor/core/storage/connections/conveyor-database.service';
import { isConnectionError } from '@conveyor/core/storage/connections/connection-errors';
import { configureHttp, ConveyorHttpModule, ConveyorHttpModuleExtras, ConveyorHttpOptions } from '@conveyor/core/http';
import { TEST_DATABASE_URL_ENV } from './test-database-env';

/** What a test needs to build an app. */
export interface TestAppOptions {
  /** Schema of this test file (from createTestSchema). */
  schema: string;
  /** Base database URL; defaults to the run's test database. */
  url?: string;
  /** Handler classes (@JobHandler providers) and any other providers they need. */
  providers?: Provider[];
  imports?: Array<Type<unknown> | DynamicModule>;
  /** Engine options; tests default to fast polling and maintenance. */
  engine?: ConveyorOptionsInput;
  /** Mount the REST API (default true). */
  http?: boolean;
  /** Mount it with `ConveyorHttpModule.forRoot(httpOptions)` (API keys, rate limit, path); plain import otherwise. */
  httpOptions?: ConveyorHttpOptions & ConveyorHttpModuleExtras;
  /** `app.setGlobalPrefix(globalPrefix)` before configureHttp, as a host app would. */
  globalPrefix?: string;
  /** TypeORM options on top of the test defaults (a host's own entities, `synchronize`). */
  typeOrm?: Partial<TypeOrmModuleOptions>;
  bodyLimitBytes?: number;
  poolSize?: number;
  poolTimeoutMs?: number;
  /** application_name of the app's connections (to find or kill them in a test). */
  appName?: string;
  /** Listen on a loopback port (for tests that need a real socket); otherwise only app.init(). */
  listen?: boolean;
  /** The Nest HTTP platform (default express). */
  platform?: 'express' | 'fastify';
  /** Nest's own body parsers (NestFactory's `bodyParser`), as a host app has them by default; default off. */
  nestBodyParser?: boolean;
}

/** A running Conveyor app inside the test process. */
export interface TestApp {
  app: INestApplication;
  jobs: JobsService;
  db: ConveyorDatabase;
  /** A plain pg pool on the same database, for assertions on stored rows. */
  sql: Pool;
  /** Base URL when `listen` was set. */
  baseUrl: string;
  /** Qualified name of the jobs table, for assertions. */
  jobsTable: string;
  close(): Promise<void>;
}

/** Engine settings that keep tests quick without changing behaviour. */
export const FAST_ENGINE: ConveyorOptionsInput = {
  pollIntervalMs: 100,
  maintenanceIntervalMs: 200,
  heartbeatIntervalMs: 500,
  leaseMs: 5_000,
  shutdownGraceMs: 2_000,
};

/** Builds and starts a Conveyor app on the test database, with the engine's real modules. */
export async function createTestApp(options: TestAppOptions): Promise<TestApp> {
  const url = options.url ?? process.env[TEST_DATABASE_URL_ENV];
  if (!url) throw new Error(`${TEST_DATABASE_URL_ENV} is not set: run the tests through jest (globalSetup picks the database)`);

  @Module({ imports: options.imports ?? [], providers: options.providers ?? [] })
  class TestHandlersModule {}

  const imports: Array<Type<unknown> | DynamicModule> = [
    TypeOrmModule.forRoot({
      type: 'postgres',
      url,
      schema: options.schema,
      autoLoadEntities: true,
      synchronize: false,
      // A DataSource whose first connection fails to open (the shared test server slow to accept one within a short
      // `poolTimeoutMs`) is given three attempts, 200 ms apart; any other start-up failure fails at once. The engine's
      // own connections, opened later with the same timeout, are not covered.
      retryAttempts: 3,
      retryDelay: 200,
      toRetry: isConnectionError,
      extra: {
        max: options.poolSize ?? 10,
        connectionTimeoutMillis: options.poolTimeoutMs ?? 5000,
        application_name: options.appName ?? 'conveyor-test',
      },
      ...(options.typeOrm ?? {}),
    } as TypeOrmModuleOptions),
    ConveyorModule.forRoot({ ...FAST_ENGINE, ...(options.engine ?? {}) }),
    TestHandlersModule,
  ];
  if (options.http !== false) imports.push(options.httpOptions ? ConveyorHttpModule.forRoot(options.httpOptions) : ConveyorHttpModule);

  @Module({ imports })
  class TestAppModule {}

  const app = await createNestApp(TestAppModule, options.platform ?? 'express', options.nestBodyParser ?? false);
  if (options.globalPrefix) app.setGlobalPrefix(options.globalPrefix);
  configureHttp(app, { bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024 });
  let baseUrl = '';
  try {
    if (options.listen) {
      await app.listen(0, '127.0.0.1');
      const address = app.getHttpServer().address() as { port: number };
      baseUrl = `http://127.0.0.1:${address.port}`;
    } else {
      await app.init();
      // Fastify compiles its hooks and routes in ready(), which only listen() calls on its own.
      if (options.platform === 'fastify') await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
    }
  } catch (err) {
    // A failed start-up (e.g. a bad handler) must not leave the DataSource's pool open.
    await app.close().catch(() => undefined);
    throw err;
  }
  const db = app.get(ConveyorDatabase);
  const sql = new Pool({ connectionString: url, max: 3 });
  let closed: Promise<void> | undefined;
  return {
    app,
    jobs: app.get(JobsService),
    db,
    sql,
    baseUrl,
    jobsTable: db.jobsTable,
    close: () => (closed ??= app.close().then(() => sql.end())),
  };
}

/** The app on the chosen platform; Fastify's adapter is loaded only by the tests that ask for it. */
async function createNestApp(module: Type<unknown>, platform: 'express' | 'fastify', bodyParser: boolean): Promise<INestApplication> {
  // abortOnError: false: a failed start-up rejects, failing its test file, instead of Nest ending the process — with
  // --runInBand, the whole run.
  const settings = { bodyParser, logger: ['error', 'warn'] as LogLevel[], abortOnError: false };
  if (platform === 'express') return NestFactory.create(module, settings);
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(module, new FastifyAdapter(), settings);
}
