/**
 * A Conveyor worker as a separate OS process, for concurrency and crash tests and the benchmark:
 * `node -r ./test/support/register-ts.js test/support/worker-process.ts`.
 * Environment: WORKER_DATABASE_URL, WORKER_RECORDER_URL (where invocations are recorded; default the former),
 * WORKER_CONNECT_TIMEOUT_MS (the pool's and the engine's connections' connect timeout), WORKER_SCHEMA, WORKER_ENGINE (JSON engine options); WORKER_HTTP=1 also serves
 * the REST API and health endpoints on a free loopback port.
 * Prints `{"event":"ready"}` (with `port` when serving HTTP) when it is claiming; SIGTERM shuts it down gracefully
 * (exit 0).
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { ConveyorModule, ConveyorOptionsInput, installShutdownSignals } from '@conveyor/core';
import { configureHttp, ConveyorHttpModule } from '@conveyor/core/http';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from './recording-handler';

async function main(): Promise<void> {
  const url = process.env.WORKER_DATABASE_URL!;
  const schema = process.env.WORKER_SCHEMA!;
  const engine = JSON.parse(process.env.WORKER_ENGINE ?? '{}') as ConveyorOptionsInput;
  const http = process.env.WORKER_HTTP === '1';
  const recorder = new Pool({ connectionString: process.env.WORKER_RECORDER_URL || url, max: 4 });
  // An idle recorder connection cut with the database (outage and partition tests) must not crash the worker process
  // under test: the recording handler's own queries still fail, as they should.
  recorder.on('error', () => undefined);
  await recorder.query(createInvocationsTableSql(schema));

  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'postgres',
        url,
        schema,
        autoLoadEntities: true,
        synchronize: false,
        extra: {
          max: Number(process.env.WORKER_POOL_SIZE ?? 6),
          application_name: process.env.WORKER_APP_NAME,
          ...(process.env.WORKER_CONNECT_TIMEOUT_MS ? { connectionTimeoutMillis: Number(process.env.WORKER_CONNECT_TIMEOUT_MS) } : {}),
        },
      }),
      ConveyorModule.forRoot(engine),
      ...(http ? [ConveyorHttpModule] : []),
    ],
    providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema } }, RecordingHandler],
  })
  class WorkerModule {}

  const app = await NestFactory.create(WorkerModule, { logger: ['error', 'warn'], bodyParser: false });
  let port: number | undefined;
  if (http) {
    configureHttp(app, { bodyLimitBytes: 1024 * 1024 });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as { port: number }).port;
  } else {
    await app.init();
  }
  // Tell the test a signal arrived (signals are not queued: a second one must wait for the first).
  for (const sig of ['SIGTERM', 'SIGINT'] as const)
    process.on(sig, () => process.stdout.write(`${JSON.stringify({ event: 'signal', sig })}\n`));
  installShutdownSignals(app, { afterClose: () => recorder.end() });
  process.stdout.write(`${JSON.stringify({ event: 'ready', pid: process.pid, port })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
