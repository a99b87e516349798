import { Pool } from 'pg';
import { BulkActionsService } from '@conveyor/core/submission/bulk-actions.service';
import { completedWithin } from '../support/job-queries';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { expectBatchRunWhenDue, expectScheduledJobsRunWhenDue } from '../support/scheduled-job.assertions';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/**
 * LISTEN/NOTIFY wake-up. The fallback poll is set to a minute, so anything that finishes within a few
 * seconds was woken by a notification or a due-time timer, not by polling.
 */
describe('wake-up without polling', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let producer: TestApp;
  let worker: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('wakeup');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    const providers = [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler];
    // Separate producer and worker apps: the notification has to travel through PostgreSQL.
    producer = await createTestApp({ schema: schema.schema, providers, engine: { runWorkers: false }, http: false });
    worker = await createTestApp({
      schema: schema.schema,
      providers,
      engine: { pollIntervalMs: 60_000, maintenanceIntervalMs: 200 },
      http: false,
      appName: 'wakeup-worker',
    });
    // The worker's first claim happens at start-up; let it settle so later claims are notification-driven.
    await waitFor(async () => {
      const { rows } = await worker.sql.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'wakeup-worker:listener'`,
      );
      return rows[0].n === 1;
    });
  });

  afterAll(async () => {
    await worker?.close();
    await producer?.close();
    await recorder?.end();
    await schema?.drop();
  });

  it('runs a new job at once, woken by the insert notification', async () => {
    const job = await producer.jobs.enqueue('TEST_RECORD', {});
    const started = Date.now();
    await completedWithin(producer.jobs, job.id, 3_000);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('runs a scheduled job when it is due, not a poll interval later', async () => {
    await expectScheduledJobsRunWhenDue(producer.jobs);
  });

  it('runs each of several scheduled jobs when it is due, a later one heard of before an earlier one', async () => {
    await expectScheduledJobsRunWhenDue(producer.jobs, [1_500, 400, 900]);
  });

  it('runs each job of one batch when it is due, though the batch is one insert and one notification', async () => {
    await expectBatchRunWhenDue(producer.jobs, [400, 900, 1_500]);
  });

  it('runs the scheduled jobs of a batch when due, beside jobs of it due at once', async () => {
    await expectBatchRunWhenDue(producer.jobs, [0, 600, 1_200]);
  });

  it('retries a failed job when its backoff ends', async () => {
    const job = await producer.jobs.enqueue('TEST_RECORD', { failTimes: 1 });
    const done = await completedWithin(producer.jobs, job.id, 4_000);
    expect(done.attempts).toBe(2);
  });

  it('runs jobs an operator retries, one or many at once, woken by the retry', async () => {
    const inAnHour = new Date(Date.now() + 3_600_000);
    const jobs = await Promise.all([1, 2, 3].map(() => producer.jobs.enqueue('TEST_RECORD', {}, { runAt: inAnHour })));
    const bulk = producer.app.get(BulkActionsService);
    await bulk.apply(
      'cancel',
      jobs.map((j) => j.id),
    );
    await producer.jobs.retry(jobs[0].id);
    await completedWithin(producer.jobs, jobs[0].id, 3_000);
    expect((await bulk.apply('retry', [jobs[1].id, jobs[2].id])).succeeded).toBe(2);
    await completedWithin(producer.jobs, jobs[1].id, 3_000);
    await completedWithin(producer.jobs, jobs[2].id, 3_000);
  });

  it('listens again after its connection is killed', async () => {
    await worker.sql.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'wakeup-worker:listener'`);
    await waitFor(
      async () => {
        const { rows } = await worker.sql.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'wakeup-worker:listener'`,
        );
        return rows[0].n === 1;
      },
      { message: 'the listener to reconnect' },
    );
    const job = await producer.jobs.enqueue('TEST_RECORD', {});
    await completedWithin(producer.jobs, job.id, 3_000);
  });
});
