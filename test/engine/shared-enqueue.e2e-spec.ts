import { Client, Pool } from 'pg';
import { ConveyorEvents, Job } from '@conveyor/core';
import { NotificationListener } from '@conveyor/core/consumer/notification-listener.service';
import { SharedInsertService } from '@conveyor/core/submission/shared-insert.service';
import { MAX_STATEMENT_PAYLOAD_CHARS, SOLO_PAYLOAD_CHARS } from '@conveyor/core/submission/statement-budget';
import { installInsertProbe, InsertProbe } from '../support/insert-probe';
import { completedWithin } from '../support/job-queries';
import { createInvocationsTableSql, invocationsTable, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** Far ahead: a job due then never runs during the test, and its NOTIFY wakes nothing. */
const FAR_FUTURE = new Date(Date.UTC(2100, 0, 1));

/**
 * In-code `enqueue` calls outside a caller's transaction share statements as `POST /jobs` does, and a shared
 * keyless group keeps the local pickup: when this instance's workers would take all of it, it goes in quietly (no
 * NOTIFY) with the claim right behind it. The fallback poll is a minute, so a job that runs within seconds was
 * claimed by the instance's own wake-up; an observer LISTENs on the channel and hears every NOTIFY.
 */
describe('enqueue: concurrent in-code submissions share statements', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let t: TestApp;
  let probe: InsertProbe;
  let observer: Client;
  const heard: string[] = [];

  beforeAll(async () => {
    schema = await createTestSchema('sharedenqueue');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    t = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { pollIntervalMs: 60_000, concurrency: 20 },
      http: false,
      appName: 'shared-enqueue',
    });
    probe = await installInsertProbe(t.sql, schema.schema);
    await waitFor(() => t.app.get(NotificationListener).isListening, { message: 'the listener to listen' });
    observer = new Client({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL });
    observer.on('notification', (msg) => heard.push(msg.payload ?? ''));
    await observer.connect();
    await observer.query(`LISTEN "${t.db.channel}"`);
  });

  afterAll(async () => {
    await probe?.open();
    await observer?.end();
    await t?.close();
    await recorder?.end();
    await schema?.drop();
  });

  /** The notifications committed since the last call: a NOTIFY sent now arrives after all of them. */
  let barriers = 0;
  const heardSoFar = async (): Promise<string[]> => {
    const barrier = `barrier-${++barriers}`;
    await observer.query('SELECT pg_notify($1, $2)', [t.db.channel, barrier]);
    await waitFor(() => heard.includes(barrier), { message: 'the observer to hear its own barrier' });
    const before = heard.slice(0, heard.indexOf(barrier));
    heard.length = 0;
    return before;
  };

  /** How many transactions inserted `jobs` (logged by the probe: workers update the rows, and with them `xmin`). */
  const insertsOf = (jobs: Job[]): Promise<number> => probe.transactionsOf(jobs.map((j) => j.id));

  /** Holds a scheduled lead job's statement (announced, on the pool) in flight while `enqueue` queues behind it. */
  async function behindALead(count: number, enqueue: (i: number) => Promise<Job>): Promise<{ lead: Job; jobs: Job[] }> {
    await probe.close();
    try {
      const lead = t.jobs.enqueue('TEST_RECORD', probe.gateRow, { runAt: FAR_FUTURE });
      await probe.waitingStatement();
      const jobs = Array.from({ length: count }, (_, i) => enqueue(i));
      const shared = t.app.get(SharedInsertService);
      await waitFor(() => shared.waiting === count, { message: `${count} submissions to queue` });
      await probe.open();
      return { lead: await lead, jobs: await Promise.all(jobs) };
    } finally {
      await probe.open();
    }
  }

  it('100 concurrent enqueues: each its own job, each run once, fewer statements than jobs', async () => {
    const jobs = await Promise.all(Array.from({ length: 100 }, (_, i) => t.jobs.enqueue('TEST_RECORD', { i })));
    expect(new Set(jobs.map((j) => j.id)).size).toBe(100);
    expect(jobs.map((j) => j.payload)).toEqual(jobs.map((_, i) => ({ i })));
    for (const job of jobs) await completedWithin(t.jobs, job.id, 10_000);
    const { rows } = await recorder.query<{ n: number; jobs: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT job_id)::int AS jobs FROM ${invocationsTable(schema.schema)} WHERE job_id = ANY($1::uuid[])`,
      [jobs.map((j) => j.id)],
    );
    expect(rows[0]).toEqual({ n: 100, jobs: 100 });
    expect(await insertsOf(jobs)).toBeLessThan(100);
  });

  it('a group of large payloads is cut at the payload budget: the waiting submissions take more than one statement', async () => {
    // Just under SOLO_PAYLOAD_CHARS, so they share the lane of the lead rather than take the lane of large ones.
    const big = 'x'.repeat(1_000_000);
    const { jobs } = await behindALead(24, (i) => t.jobs.enqueue('TEST_RECORD', { i, big }, { runAt: FAR_FUTURE }));
    // 16 payloads of just over 1,000,000 characters fit in MAX_STATEMENT_PAYLOAD_CHARS (16 MiB), 17 do not: 16, then 8.
    expect(MAX_STATEMENT_PAYLOAD_CHARS).toBe(16 * 1024 * 1024);
    expect(SOLO_PAYLOAD_CHARS).toBe(1024 * 1024);
    expect(await insertsOf(jobs)).toBe(2);
    const { rows } = await t.sql.query<{ n: number; whole: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE length(payload->>'big') = $2)::int AS whole FROM ${t.jobsTable} WHERE id = ANY($1::uuid[])`,
      [jobs.map((j) => j.id), big.length],
    );
    expect(rows[0]).toEqual({ n: 24, whole: 24 });
  });

  it('a shared keyless group its workers take at once goes in quietly, with the claim behind it', async () => {
    await heardSoFar();
    const claimed: string[] = [];
    const off = t.app.get(ConveyorEvents).on('claimed', (jobs) => claimed.push(...jobs.map((j) => j.id)));
    try {
      const { lead, jobs } = await behindALead(5, (i) => t.jobs.enqueue('TEST_RECORD', { i }));
      for (const job of jobs) await completedWithin(t.jobs, job.id, 3_000);
      expect(await insertsOf(jobs)).toBe(1);
      expect(claimed.sort()).toEqual(jobs.map((j) => j.id).sort());
      // The lead (scheduled, so announced) was heard; the group was not.
      expect(await heardSoFar()).toHaveLength(1);
      await t.jobs.cancel(lead.id);
    } finally {
      off();
    }
  });

  it('a shared group larger than the workers take at once is announced, and still runs', async () => {
    await heardSoFar();
    const { lead, jobs } = await behindALead(50, (i) => t.jobs.enqueue('TEST_RECORD', { i }));
    expect(await insertsOf(jobs)).toBe(1);
    for (const job of jobs) await completedWithin(t.jobs, job.id, 10_000);
    expect((await heardSoFar()).length).toBeGreaterThan(1);
    await t.jobs.cancel(lead.id);
  });
});
