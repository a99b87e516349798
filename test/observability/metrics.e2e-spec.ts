import { Pool } from 'pg';
import request from 'supertest';
import { JobStatus } from '@conveyor/core';
import { parsePrometheusText, PromSample, sampleValue, samplesOf } from '../support/prometheus-text';
import { createInvocationsTableSql, invocationsTable, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const TYPE = 'TEST_RECORD';

describe('GET /metrics', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('metrics');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    t = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { concurrency: 4 },
    });
  });

  afterAll(async () => {
    await t?.close();
    await recorder?.end();
    await schema?.drop();
  });

  async function scrape(app: TestApp = t): Promise<PromSample[]> {
    const res = await request(app.app.getHttpServer()).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
    return parsePrometheusText(res.text);
  }

  it('counts outcomes, times handlers and queue waits, and reads the depth from the database', async () => {
    const later = new Date(Date.now() + 3_600_000);
    const jobs = [
      await t.jobs.enqueue(TYPE, {}, { queue: 'default' }),
      await t.jobs.enqueue(TYPE, {}, { queue: 'default' }),
      await t.jobs.enqueue(TYPE, { snoozeMs: 30, snoozeTimes: 1 }, { queue: 'default' }),
      await t.jobs.enqueue(TYPE, { failTimes: 1 }, { queue: 'flaky' }),
      await t.jobs.enqueue(TYPE, { alwaysFail: true }, { queue: 'flaky' }), // maxAttempts 3: fails twice, then dead
      await t.jobs.enqueue(TYPE, { permanent: true }, { queue: 'flaky' }),
    ];
    await t.jobs.enqueue(TYPE, {}, { queue: 'later', runAt: later });
    const doomed = await t.jobs.enqueue(TYPE, {}, { queue: 'later', runAt: later });
    await t.jobs.cancel(doomed.id);

    await waitFor(
      async () =>
        (await Promise.all(jobs.map((j) => t.jobs.get(j.id)))).every((j) =>
          ([JobStatus.COMPLETED, JobStatus.DEAD] as JobStatus[]).includes(j.status),
        ),
      {
        message: 'every due job to finish',
      },
    );
    // Outcomes are announced once written, a moment after the row changed: poll the endpoint itself.
    const m = await waitFor(
      async () => {
        const s = await scrape();
        const finished = (name: string, queue: string) => sampleValue(s, name, { queue, type: TYPE }) ?? 0;
        const settled =
          finished('conveyor_jobs_completed_total', 'default') === 3 &&
          finished('conveyor_jobs_completed_total', 'flaky') === 1 &&
          finished('conveyor_jobs_dead_total', 'flaky') === 2 &&
          sampleValue(s, 'conveyor_queue_depth', { queue: 'flaky', status: 'DEAD' }) === 2;
        return settled && s;
      },
      { message: 'the outcomes and depth to show in /metrics' },
    );
    const v = (name: string, labels: Record<string, string> = {}) => sampleValue(m, name, labels);
    const job = (queue: string, extra: Record<string, string> = {}) => ({ queue, type: TYPE, ...extra });

    expect(v('conveyor_jobs_submitted_total', job('default'))).toBe(3);
    expect(v('conveyor_jobs_submitted_total', job('flaky'))).toBe(3);
    expect(v('conveyor_jobs_submitted_total', job('later'))).toBe(2);
    expect(v('conveyor_jobs_failed_total', job('flaky'))).toBe(3); // failTimes:1 once, alwaysFail twice
    expect(v('conveyor_jobs_failed_total', job('default'))).toBeUndefined();
    expect(v('conveyor_jobs_snoozed_total', job('default'))).toBe(1);
    expect(v('conveyor_jobs_cancelled_total', job('later'))).toBe(1);
    expect(v('conveyor_jobs_handed_back_total', job('default'))).toBeUndefined();

    // One duration observation per written attempt, by outcome.
    expect(v('conveyor_job_duration_seconds_count', job('default', { outcome: 'completed' }))).toBe(3);
    expect(v('conveyor_job_duration_seconds_count', job('default', { outcome: 'snoozed' }))).toBe(1);
    expect(v('conveyor_job_duration_seconds_count', job('flaky', { outcome: 'completed' }))).toBe(1);
    expect(v('conveyor_job_duration_seconds_count', job('flaky', { outcome: 'failed' }))).toBe(3);
    expect(v('conveyor_job_duration_seconds_count', job('flaky', { outcome: 'dead' }))).toBe(2);
    expect(v('conveyor_job_duration_seconds_bucket', job('flaky', { outcome: 'dead', le: '+Inf' }))).toBe(2);
    expect(v('conveyor_job_duration_seconds_sum', job('default', { outcome: 'completed' }))).toBeGreaterThan(0);

    // Every handler start is one queue-latency observation and one claimed job: compare with the handler's own record.
    const { rows } = await t.sql.query<{ queue: string; n: number }>(
      `SELECT j.queue, count(*)::int AS n FROM ${invocationsTable(schema.schema)} i JOIN ${t.jobsTable} j ON j.id = i.job_id GROUP BY j.queue`,
    );
    const started = Object.fromEntries(rows.map((r) => [r.queue, r.n]));
    expect(started).toEqual({ default: 4, flaky: 6 });
    expect(v('conveyor_job_queue_latency_seconds_count', job('default'))).toBe(4);
    expect(v('conveyor_job_queue_latency_seconds_count', job('flaky'))).toBe(6);
    expect(v('conveyor_claim_batch_size_sum')).toBe(10);
    const claims = v('conveyor_claim_batch_size_count')!;
    expect(claims).toBeGreaterThanOrEqual(1);
    expect(v('conveyor_claim_batch_requested_count')).toBe(claims);
    expect(v('conveyor_claim_batch_requested_sum')).toBeGreaterThanOrEqual(10);

    // Depth: one grouped count of the live states (and DEAD); drained states of a known queue read 0.
    expect(v('conveyor_queue_depth', { queue: 'later', status: 'SCHEDULED' })).toBe(1);
    expect(v('conveyor_queue_depth', { queue: 'flaky', status: 'DEAD' })).toBe(2);
    for (const status of ['PENDING', 'RETRYING', 'RUNNING']) expect(v('conveyor_queue_depth', { queue: 'flaky', status })).toBe(0);
    expect(samplesOf(m, 'conveyor_queue_depth', { status: 'COMPLETED' })).toEqual([]);

    expect(v('conveyor_pool_slots_capacity')).toBe(4);
    expect(v('conveyor_pool_slots_in_use')).toBe(0);
    expect(v('conveyor_pool_buffered_jobs')).toBe(0);
    expect(v('conveyor_stale_writes_total')).toBe(0);
    expect(v('conveyor_lease_rescues_total')).toBe(0);
    // Node's process metrics live on the same (private) registry.
    expect(v('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(v('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('counts a job whose last attempt lost its lease as dead, on the instance that rescued it', async () => {
    // A job on its last attempt whose worker vanished mid-run (a crash, a poison job ending its process): no worker
    // will ever report it; the leader's sweeper makes it DEAD.
    const lost = await t.jobs.enqueue(TYPE, {}, { queue: 'lost', maxAttempts: 1, runAt: new Date(Date.now() + 3_600_000) });
    await t.sql.query(
      `UPDATE ${t.jobsTable} SET status = 'RUNNING', attempts = 1, locked_by = 'vanished-worker',
         locked_until = now() - interval '1 second', lease_token = gen_random_uuid(), started_at = now()
       WHERE id = $1`,
      [lost.id],
    );
    // The sweeper reports a round once it is over, a moment after the row changed: poll the endpoint itself.
    const m = await waitFor(async () => {
      const s = await scrape();
      return sampleValue(s, 'conveyor_lease_rescues_total') === 1 && s;
    });
    const { rows } = await t.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${t.jobsTable} WHERE queue = 'lost' AND status = 'DEAD'`,
    );
    expect(rows[0].n).toBe(1);
    expect(sampleValue(m, 'conveyor_jobs_dead_total', { queue: 'lost', type: TYPE })).toBe(rows[0].n);
  });

  it('stays open behind API keys, and each app in the process keeps its own counts', async () => {
    const keyed = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { runWorkers: false },
      httpOptions: { apiKeys: [{ role: 'admin', key: 'metrics-test-admin-key' }] },
    });
    try {
      await request(keyed.app.getHttpServer()).get('/jobs').expect(401);
      await keyed.jobs.enqueue(TYPE, {}, { queue: 'later', runAt: new Date(Date.now() + 3_600_000) });

      const own = await scrape(keyed);
      expect(sampleValue(own, 'conveyor_jobs_submitted_total', { queue: 'later', type: TYPE })).toBe(1);
      expect(sampleValue(own, 'conveyor_pool_slots_capacity')).toBe(0); // an API-only instance
      // The database-wide depth comes from the maintenance leader only (the first app, most likely): one of the two
      // reports it, the other has no series.
      const [first, second] = await waitFor(async () => {
        const both = [await scrape(), await scrape(keyed)];
        const leading = both.map((s) => sampleValue(s, 'conveyor_maintenance_leader'));
        const depths = both.map((s) => sampleValue(s, 'conveyor_queue_depth', { queue: 'later', status: 'SCHEDULED' }));
        return leading.sort().join() === '0,1' && depths.filter((d) => d !== undefined).join() === '2' && both;
      });
      for (const s of [first, second]) {
        if (sampleValue(s, 'conveyor_maintenance_leader') === 0) expect(samplesOf(s, 'conveyor_queue_depth')).toEqual([]);
      }
      // The first app's registry did not see the second app's submission.
      expect(sampleValue(first, 'conveyor_jobs_submitted_total', { queue: 'later', type: TYPE })).toBe(2);
    } finally {
      await keyed.close();
    }
  });
});

/**
 * A queue per tenant (or per request) must not grow `/metrics` without bound: past `metricsMaxQueues` distinct
 * queues, jobs are counted under `queue="(other)"` in every metric labelled by queue, each job still once.
 */
describe('GET /metrics with more queues than metricsMaxQueues', () => {
  const NAMED = ['tenant-0', 'tenant-1'];
  const LATER = ['tenant-0', 'tenant-7', 'tenant-7', 'tenant-8'];
  let schema: TestSchema;
  let recorder: Pool;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('metrics_bounded');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    t = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { concurrency: 4, metricsMaxQueues: NAMED.length },
    });
  });

  afterAll(async () => {
    await t?.close();
    await recorder?.end();
    await schema?.drop();
  });

  it('labels the first queues by name and every later one as (other), and the counts still add up to the rows', async () => {
    const due = await t.jobs.enqueueMany(Array.from({ length: 6 }, (_, i) => ({ type: TYPE, payload: {}, queue: `tenant-${i}` })));
    const later = new Date(Date.now() + 3_600_000);
    for (const queue of LATER) await t.jobs.enqueue(TYPE, {}, { queue, runAt: later });
    await waitFor(async () => (await Promise.all(due.map((j) => t.jobs.get(j.id)))).every((j) => j.status === JobStatus.COMPLETED));

    const m = await waitFor(async () => {
      const s = parsePrometheusText((await request(t.app.getHttpServer()).get('/metrics').expect(200)).text);
      const completed = samplesOf(s, 'conveyor_jobs_completed_total').reduce((n, x) => n + x.value, 0);
      return completed === due.length && samplesOf(s, 'conveyor_queue_depth').length > 0 && s;
    });
    const labelled = new Set(m.filter((s) => s.name.startsWith('conveyor_') && 'queue' in s.labels).map((s) => s.labels.queue));
    expect([...labelled].sort()).toEqual(['(other)', ...NAMED]);

    const v = (name: string, labels: Record<string, string>) => sampleValue(m, name, labels);
    expect(v('conveyor_jobs_submitted_total', { queue: 'tenant-0', type: TYPE })).toBe(2);
    expect(v('conveyor_jobs_submitted_total', { queue: 'tenant-1', type: TYPE })).toBe(1);
    expect(v('conveyor_jobs_submitted_total', { queue: '(other)', type: TYPE })).toBe(7);
    expect(v('conveyor_jobs_completed_total', { queue: '(other)', type: TYPE })).toBe(4);
    expect(v('conveyor_job_duration_seconds_count', { queue: '(other)', type: TYPE, outcome: 'completed' })).toBe(4);
    expect(v('conveyor_job_queue_latency_seconds_count', { queue: '(other)', type: TYPE })).toBe(4);

    // The gauges add the queues past the bound up: per status, the rows of every queue not named.
    const { rows } = await t.sql.query<{ queue: string; n: number }>(
      `SELECT CASE WHEN queue = ANY($1) THEN queue ELSE '(other)' END AS queue, count(*)::int AS n
       FROM ${t.jobsTable} WHERE status = 'SCHEDULED' GROUP BY 1`,
      [NAMED],
    );
    expect(rows.length).toBe(2);
    for (const r of rows) expect(v('conveyor_queue_depth', { queue: r.queue, status: 'SCHEDULED' })).toBe(r.n);
    expect(v('conveyor_queue_depth', { queue: '(other)', status: 'SCHEDULED' })).toBe(3);
  });
});
