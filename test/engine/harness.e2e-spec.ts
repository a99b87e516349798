import { AddressInfo, createServer } from 'node:net';
import { Pool } from 'pg';
import { JobStatus } from '@conveyor/core';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker } from '../support/worker-processes';

describe('test harness', () => {
  let schema: TestSchema;
  let t: TestApp;
  let recorder: Pool;

  beforeAll(async () => {
    schema = await createTestSchema('harness');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    t = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { runWorkers: false },
    });
  });

  afterAll(async () => {
    await t?.close();
    await recorder?.end();
    await schema?.drop();
  });

  it('a worker in a separate process runs a job submitted in this one', async () => {
    const job = await t.jobs.enqueue('TEST_RECORD', { result: { hello: 'world' } });
    const worker = spawnWorker({ url: process.env.CONVEYOR_TEST_DATABASE_URL!, schema: schema.schema, engine: { pollIntervalMs: 100 } });
    await worker.ready;
    const done = await waitFor(async () => {
      const j = await t.jobs.get(job.id);
      return j.status === JobStatus.COMPLETED && j;
    });
    expect(done.result).toEqual({ hello: 'world' });
    worker.proc.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });

  it('an app that cannot reach its database fails to start with an error, without ending the test process', async () => {
    // A port nothing listens on: every connection is refused, through each retry.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const url = new URL(process.env.CONVEYOR_TEST_DATABASE_URL!);
    url.host = `127.0.0.1:${port}`;
    await expect(createTestApp({ url: url.toString(), schema: schema.schema, engine: { runWorkers: false }, http: false })).rejects.toThrow(
      /ECONNREFUSED/,
    );
  });
});
