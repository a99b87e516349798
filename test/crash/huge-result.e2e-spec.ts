import { Pool } from 'pg';
import { JobStatus } from '@conveyor/core';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';

describe('a handler that returns a huge result', () => {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let recorder: Pool;
  let control: TestApp;
  let worker: SpawnedWorker | undefined;

  beforeAll(async () => {
    schema = await createTestSchema('hugeresult');
    recorder = new Pool({ connectionString: url, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    control = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { runWorkers: false, maintenanceIntervalMs: 250 },
      appName: 'hugeresult-control',
    });
  });

  afterAll(async () => {
    if (worker && worker.proc.exitCode === null) worker.proc.kill('SIGTERM');
    await worker?.exited;
    await control?.close();
    await recorder?.end();
    await schema?.drop();
  });

  it('probe', async () => {
    worker = spawnWorker({
      url,
      schema: schema.schema,
      http: true,
      engine: { leaseMs: 2000, heartbeatIntervalMs: 500, maintenanceIntervalMs: 250, pollIntervalMs: 100, workerId: 'huge' },
      appName: 'huge',
    });
    await worker.ready;
    const t0 = Date.now();
    const huge = await control.jobs.enqueue('TEST_RECORD', { resultChars: 50_000_000 });
    const small = await Promise.all([1, 2, 3, 4, 5].map(() => control.jobs.enqueue('TEST_RECORD', {})));
    const j = await waitFor(
      async () => {
        const x = await control.jobs.get(huge.id);
        return [JobStatus.COMPLETED, JobStatus.DEAD].includes(x.status) ? x : null;
      },
      { timeoutMs: 60_000 },
    );
    console.log(
      'huge ended',
      Date.now() - t0,
      'ms',
      j.status,
      j.attempts,
      typeof j.result === 'string' ? j.result.length : JSON.stringify(j.result)?.slice(0, 100),
      j.lastError,
      j.errors.map((e) => e.kind),
    );
    for (const s of small) {
      const x = await control.jobs.get(s.id);
      console.log('small', x.status, x.finishedAt && x.finishedAt.getTime() - t0);
    }
    const base = `http://127.0.0.1:${worker.port()}`;
    let t = Date.now();
    let res = await fetch(`${base}/jobs?limit=100`);
    let body = await res.text();
    console.log('GET /jobs', res.status, body.length, 'chars', Date.now() - t, 'ms');
    t = Date.now();
    res = await fetch(`${base}/jobs/${huge.id}`);
    body = await res.text();
    console.log('GET /jobs/:id', res.status, body.length, 'chars', Date.now() - t, 'ms');
    console.log(worker.output().slice(-2000));
  }, 120_000);
});
