import { Pool } from 'pg';
import { ConveyorEvents } from '@conveyor/core';
import { LocalPickupService } from '@conveyor/core/consumer/local-pickup/local-pickup.service';
import { NotificationListener } from '@conveyor/core/consumer/notification-listener.service';
import { completedWithin } from '../support/job-queries';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { expectBatchRunWhenDue, expectScheduledJobsRunWhenDue } from '../support/scheduled-job.assertions';
import { createTestApp, TestApp, TestAppOptions } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/**
 * An instance that submits jobs and runs workers is woken by its own committed inserts, not only by their
 * NOTIFY. The fallback poll is set to a minute, so whatever finishes within a few seconds was woken by the
 * insert itself (or a due-time timer it armed); and each insert, heard twice, costs one claim.
 */
/** Rows per insert statement on the unheard app: a larger batch goes as several statements in one transaction. */
const MAX_BATCH = 5;

describe('wake-up by this instance’s own inserts', () => {
  const schemas: TestSchema[] = [];
  let recorder: Pool;
  let unheard: TestApp;
  let listening: TestApp;

  /** One app on a schema of its own, with the recording handler. */
  const appOn = async (name: string, engine: TestAppOptions['engine']) => {
    const schema = await createTestSchema(name);
    schemas.push(schema);
    await recorder.query(createInvocationsTableSql(schema.schema));
    const providers = [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler];
    return createTestApp({ schema: schema.schema, providers, engine, http: false, appName: name });
  };

  beforeAll(async () => {
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    // No LISTEN at all: a notification can wake nothing there.
    unheard = await appOn('localwake_unheard', { pollIntervalMs: 60_000, listen: false, maxBatchSize: MAX_BATCH });
    listening = await appOn('localwake_listening', { pollIntervalMs: 60_000 });
    // LISTEN is in place once the listener says so (its first wake-up claim is then already on its way).
    await waitFor(() => listening.app.get(NotificationListener).isListening, { message: 'the listener to listen' });
  });

  afterAll(async () => {
    await listening?.close();
    await unheard?.close();
    await recorder?.end();
    for (const schema of schemas) await schema.drop();
  });

  it('runs a job submitted in-process at once, with no listener and no poll', async () => {
    const job = await unheard.jobs.enqueue('TEST_RECORD', {});
    await completedWithin(unheard.jobs, job.id, 3_000);
    const batch = await unheard.jobs.enqueueMany([
      { type: 'TEST_RECORD', payload: {} },
      { type: 'TEST_RECORD', payload: {} },
    ]);
    for (const j of batch) await completedWithin(unheard.jobs, j.id, 3_000);
  });

  it('runs a batch inserted in a transaction of its own (keys, or more than one statement) at once, with no listener', async () => {
    const keyed = await unheard.jobs.enqueueMany([
      { type: 'TEST_RECORD', payload: { keyed: true }, idempotencyKey: `local-wake-${Date.now()}` },
      { type: 'TEST_RECORD', payload: {} },
    ]);
    for (const j of keyed) await completedWithin(unheard.jobs, j.id, 3_000);
    const large = await unheard.jobs.enqueueMany(
      Array.from({ length: MAX_BATCH + 2 }, (_, i) => ({ type: 'TEST_RECORD', payload: { i } })),
    );
    for (const j of large) await completedWithin(unheard.jobs, j.id, 3_000);
  });

  it('runs a scheduled job submitted in-process when it is due, with no listener', async () => {
    await expectScheduledJobsRunWhenDue(unheard.jobs);
  });

  it('runs each of several scheduled jobs when it is due, a later one heard of before an earlier one', async () => {
    await expectScheduledJobsRunWhenDue(unheard.jobs, [1_500, 400, 900]);
  });

  it.each([
    ['no listener', () => unheard],
    ['its NOTIFY heard as well', () => listening],
  ])('runs each job of one batch submitted in-process when it is due (%s)', async (_, app) => {
    await expectBatchRunWhenDue(app().jobs, [0, 500, 1_000]);
  });

  it('runs a job due in a few milliseconds when it is due, not at the next poll', async () => {
    // Due within the poller's clock slack: its first claim can come before run_at, and must not be the only one.
    for (let i = 0; i < 3; i++) {
      const job = await unheard.jobs.enqueue('TEST_RECORD', {}, { delayMs: 15 });
      await completedWithin(unheard.jobs, job.id, 3_000);
    }
  });

  it('claims once per insert although it hears of each twice (its result and its NOTIFY)', async () => {
    const pickup = listening.app.get(LocalPickupService);
    const submitAndRun = async (i: number) => {
      // Announced inserts (one due now without a key would be quiet: quiet-own-inserts.e2e-spec): scheduled ones,
      // and ones due at once that carry a key.
      // 200 ms: an answer late by more than that less the clock slack would claim at once and again at the timer.
      const options = i % 2 === 0 ? { delayMs: 200 } : { idempotencyKey: `local-wake-claims-${Date.now()}-${i}` };
      const job = await listening.jobs.enqueue('TEST_RECORD', { i }, options);
      await completedWithin(listening.jobs, job.id, 3_000);
      // Both halves of the pair have arrived: nothing is left waiting for its partner.
      await waitFor(() => pickup.unpairedEchoes === 0, { message: 'the insert and its NOTIFY to be paired' });
    };
    // One job first, so the start-up claims (the poller's and the listener's) are over before counting.
    await submitAndRun(-1);
    let claims = 0;
    const off = listening.app.get(ConveyorEvents).on('claimed', () => claims++);
    try {
      for (let i = 0; i < 20; i++) await submitAndRun(i);
    } finally {
      off();
    }
    expect(claims).toBe(20);
  });
});
