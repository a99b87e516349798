import { Pool } from 'pg';
import { DatabaseClock } from '@conveyor/core/storage/connections/database-clock.service';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { expectScheduledJobsRunWhenDue } from '../support/scheduled-job.assertions';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** How far this process's clock runs ahead of the database's in this test. */
const SKEW_MS = 400;

/**
 * A host whose clock runs ahead of the database's: its due timers run on its estimate of the database's clock
 * (DatabaseClock, read by each maintenance round), so a scheduled job still runs when due by the database, not a
 * poll interval later. The skew is this process's Date.now() moved ahead; PostgreSQL's clock is the real one. With
 * the host's own clock the timer would claim 400 ms before the job is due, and the job would wait for the minute's
 * fallback poll.
 */
describe('due timers on a host whose clock runs ahead of the database', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let producer: TestApp;
  let worker: TestApp;
  const realNow = Date.now.bind(Date);

  beforeAll(async () => {
    schema = await createTestSchema('clockskew');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    // The database's clock against this process's real one (a server elsewhere may differ from it already).
    const { rows } = await recorder.query<{ ms: number }>(`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`);
    const realOffset = rows[0].ms - realNow();
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + SKEW_MS);
    await recorder.query(createInvocationsTableSql(schema.schema));
    const providers = [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler];
    producer = await createTestApp({ schema: schema.schema, providers, engine: { runWorkers: false }, http: false });
    worker = await createTestApp({
      schema: schema.schema,
      providers,
      engine: { pollIntervalMs: 60_000 },
      http: false,
      appName: 'clockskew-worker',
    });
    // The worker's first maintenance round has read the database's clock.
    const clock = worker.app.get(DatabaseClock);
    await waitFor(() => Math.abs(clock.offset - (realOffset - SKEW_MS)) < 50, { message: 'the worker to estimate the skew' });
  });

  afterAll(async () => {
    await worker?.close();
    await producer?.close();
    await recorder?.end();
    await schema?.drop();
    jest.restoreAllMocks();
  });

  it('runs jobs scheduled by another instance when they are due by the database', async () => {
    await expectScheduledJobsRunWhenDue(producer.jobs, [900, 600]);
  });
});
