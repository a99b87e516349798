import { Job, JobStatus, WorkerOrchestrator } from '@conveyor/core';
import { JobPoller } from '@conveyor/core/consumer/job-poller.service';
import { ConveyorDatabase } from '@conveyor/core/storage/connections/conveyor-database.service';
import { jobCountActive } from '@conveyor/core/storage/statements';
import { waitFor } from '../support/wait-for';
import { ControlledHandler, HandlerControls } from './support/controlled.handler';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/** `GET /health/live` and `GET /health/ready`, in terminus format. */
describe('health endpoints', () => {
  describe('a running worker', () => {
    let t: RestTestApp;
    let controls: HandlerControls;
    const submit = async (body: Record<string, unknown>) => (await t.api().post('/jobs').send(body).expect(201)).body as Job;

    beforeAll(async () => {
      t = await createRestTestApp('http_health', { providers: [HandlerControls, ControlledHandler], engine: { concurrency: 4 } });
      controls = t.app.get(HandlerControls);
      // Ready means the poller has claimed (or tried) recently: wait for its first round.
      await waitFor(() => t.app.get(JobPoller).lastPollAt, { message: 'the first poll' });
    });

    afterAll(async () => {
      controls?.releaseAll();
      await t?.close();
    });

    it('live is 200 in terminus format: the event loop turns and no claim has hung', async () => {
      const res = await t.api().get('/health/live').expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        info: {
          eventLoop: { status: 'up', maxDelayMs: expect.any(Number) },
          claimLoop: { status: 'up', claimInFlightMs: expect.any(Number) },
        },
        error: {},
        details: res.body.info,
      });
    });

    it('ready is 200 with the database, migrations, worker and queue counts and pool usage', async () => {
      // A known mix: one RUNNING, two PENDING (paused queue), one SCHEDULED, one DEAD.
      controls.hold('busy');
      const running = await submit({ type: 'TEST_CONTROLLED', payload: { name: 'busy' } });
      await waitFor(async () => (await t.statusOf(running.id)) === JobStatus.RUNNING);
      await t.api().post('/queues/parked/pause').expect(200);
      await submit({ type: 'TEST_RECORD', payload: {}, queue: 'parked' });
      await submit({ type: 'TEST_RECORD', payload: {}, queue: 'parked' });
      await submit({ type: 'TEST_RECORD', payload: {}, delayMs: 3_600_000 });
      const dead = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'parked' });
      await t.sql.query(`UPDATE ${t.jobsTable} SET status = 'DEAD' WHERE id = $1`, [dead.id]);

      const res = await t.api().get('/health/ready').expect(200);
      expect(res.body.status).toBe('ok');
      expect(res.body.error).toEqual({});
      expect(res.body.details).toEqual(res.body.info);
      const { database, migrations, worker, queue } = res.body.info;
      expect(database).toEqual({ status: 'up', latencyMs: expect.any(Number) });
      expect(migrations).toMatchObject({ status: 'up' });
      expect(worker).toMatchObject({ status: 'up', lastPollAgeMs: expect.any(Number), concurrency: 4, running: 1 });
      expect(queue).toEqual({
        status: 'up',
        scheduled: 1,
        pending: 2,
        running: 1,
        retrying: 0,
        dead: 1,
        pool: { concurrency: 4, running: 1, buffered: 0, finishing: 0 },
        connections: { total: expect.any(Number), idle: expect.any(Number), waiting: expect.any(Number) },
      });
      expect(queue.connections.total).toBeGreaterThan(0);

      // The counts are the table's.
      const { rows } = await t.sql.query(`SELECT status, count(*)::int AS n FROM ${t.jobsTable} GROUP BY status`);
      const stored = Object.fromEntries(rows.map((r) => [r.status.toLowerCase(), r.n]));
      for (const s of ['scheduled', 'pending', 'running', 'dead']) expect(queue[s]).toBe(stored[s]);

      controls.release('busy');
      await waitFor(async () => (await t.statusOf(running.id)) === JobStatus.COMPLETED);
    });
    it('reads the counts from the partial indexes of waiting, running and DEAD jobs, never the finished history', async () => {
      const client = await t.sql.connect();
      try {
        // The test table is tiny, so the planner would rightly prefer a scan; forbid it to see what serves the query.
        await client.query('SET enable_seqscan = off');
        const { text, values } = jobCountActive(t.db.tables);
        const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
        for (const index of ['conveyor_jobs_claimable', 'conveyor_jobs_lease', 'conveyor_jobs_attention']) expect(plan).toContain(index);
        expect(plan).not.toContain('Seq Scan');
      } finally {
        await client.query('RESET enable_seqscan').catch(() => undefined);
        client.release();
      }
    });

    it('stays ready while the job counts are slow to read: they are left out, with the reason', async () => {
      // Counting waits behind this lock as it would behind a backlog of millions of jobs: past the probe's timeout.
      const locker = await t.sql.connect();
      try {
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE ${t.jobsTable} IN ACCESS EXCLUSIVE MODE`);
        const res = await t.api().get('/health/ready');
        expect(res.body.info.queue).toEqual({
          status: 'up',
          countsUnavailable: 'timed out after 1000 ms',
          pool: expect.objectContaining({ concurrency: 4 }),
          connections: expect.objectContaining({ total: expect.any(Number) }),
        });
        expect(res.status).toBe(200);
      } finally {
        await locker.query('ROLLBACK');
        locker.release();
      }
      const after = await t.api().get('/health/ready').expect(200);
      expect(after.body.info.queue).toMatchObject({ status: 'up', pending: expect.any(Number) });
    });
  });

  describe('with every pooled connection held (long handlers or requests)', () => {
    let t: RestTestApp;

    beforeAll(async () => {
      // The pool's own wait (poolTimeoutMs) outlasts the probe's 1 s, as the service's default (3 s) does.
      t = await createRestTestApp('http_health_pool', { poolSize: 2, poolTimeoutMs: 10_000 });
      await waitFor(() => t.app.get(JobPoller).lastPollAt, { message: 'the first poll' });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('is not ready, and blames the pool rather than a database that answers', async () => {
      const pg = t.app.get(ConveyorDatabase).pgPool;
      const held = [await pg.connect(), await pg.connect()];
      try {
        const res = await t.api().get('/health/ready').expect(503);
        const poolFull =
          /^timed out after 1000 ms waiting for a pooled connection: all 2 are in use, \d+ waiting \(the database was not asked\)$/;
        expect(res.body.error.database.message).toMatch(poolFull);
        expect(res.body.error.migrations.message).toMatch(/^cannot tell: timed out after 1000 ms waiting for a pooled connection/);
        expect((await t.sql.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        for (const client of held) client.release();
      }
      await t.api().get('/health/ready').expect(200);
    });
  });

  describe('an API-only node (no workers)', () => {
    let t: RestTestApp;

    beforeAll(async () => {
      t = await createRestTestApp('http_health_api', { engine: { runWorkers: false } });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('is ready without a poller, and says it runs no workers', async () => {
      const res = await t.api().get('/health/ready').expect(200);
      expect(res.body.info.worker).toEqual({ status: 'up', workers: false });
    });
  });

  describe('while shutting down', () => {
    let t: RestTestApp;

    beforeAll(async () => {
      t = await createRestTestApp('http_health_stop');
      await waitFor(() => t.app.get(JobPoller).lastPollAt, { message: 'the first poll' });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('ready turns 503 (terminus format, worker down) as soon as shutdown begins; live stays 200', async () => {
      await t.api().get('/health/ready').expect(200);
      // The first step of app.close(): from here on the instance must stop receiving traffic.
      await t.app.get(WorkerOrchestrator).beforeApplicationShutdown();

      const res = await t.api().get('/health/ready').expect(503);
      expect(res.body).toMatchObject({
        status: 'error',
        error: { worker: { status: 'down', message: 'shutting down' } },
        info: { database: { status: 'up' }, migrations: { status: 'up' } },
      });
      expect(res.body.details.worker).toEqual(res.body.error.worker);
      await t.api().get('/health/live').expect(200);
    });
  });
});
