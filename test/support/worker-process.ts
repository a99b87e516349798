/**
 * A Conveyor worker as a separate OS process, for concurrency and crash tests and the benchmark:
 * `node -r ./test/support/register-ts.js test/support/worker-process.ts`.
 * Environment: WORKER_DATABASE_URL, WORKER_SCHEMA, WORKER_ENGINE (JSON engine options).
 * Prints `{"event":"ready"}` when it is claiming; SIGTERM shuts it down gracefully (exit 0).
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { ConveyorModule, ConveyorOptionsInput } from '@conveyor/core';
import { installShutdownSignals } from '../../apps/server/src/shutdown-signals';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from './recording-handler';

async function main(): Promise<void> {
  const url = process.env.WORKER_DATABASE_URL!;
  const schema = process.env.WORKER_SCHEMA!;
  const engine = JSON.parse(process.env.WORKER_ENGINE ?? '{}') as ConveyorOptionsInput;
  const recorder = new Pool({ connectionString: url, max: 4 });
  await recorder.query(createInvocationsTableSql(schema));

  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'postgres',
        url,
        schema,
        autoLoadEntities: true,
        synchronize: false,
        extra: { max: Number(process.env.WORKER_POOL_SIZE ?? 6), application_name: process.env.WORKER_APP_NAME },
      }),
      ConveyorModule.forRoot(engine),
    ],
    providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema } }, RecordingHandler],
  })
  class WorkerModule {}

  const app = await NestFactory.create(WorkerModule, { logger: ['error', 'warn'], bodyParser: false });
  await app.init();
  // Tell the test a signal arrived (signals are not queued: a second one must wait for the first).
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => process.stdout.write(`${JSON.stringify({ event: 'signal', sig })}\n`));
  installShutdownSignals(app, () => recorder.end());
  process.stdout.write(`${JSON.stringify({ event: 'ready', pid: process.pid })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
