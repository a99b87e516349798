import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import request from 'supertest';
import { JobHandler, JobHandlerHost, JobStatus } from '@conveyor/core';
import { countByStatus, invocationStats } from '../support/job-queries';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { FINAL_WRITES_MS } from '@conveyor/core/consumer/worker-pool.service';
import { NotificationListener } from '@conveyor/core/consumer/notification-listener.service';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestApp, TestAppOptions } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** Runs until the test lets it finish; tells the test when it has started. */
const gate = { started: false, open: null as null | (() => void) };

@JobHandler('GATED')
class GatedHandler extends JobHandlerHost {
  async handle(): Promise<string> {
    gate.started = true;
    await new Promise<void>((resolve) => (gate.open = resolve));
    return 'finished during the outage';
  }
}

/** The database goes away under a running service: connections killed, or unreachable for a while. */
describe('database trouble', () => {
  const base = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let admin: Pool;
  let recorder: Pool;

  const handlers = () => [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler];
  const killConnections = (appName: string) =>
    admin.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
       WHERE application_name LIKE $1 AND pid <> pg_backend_pid()`,
      [`${appName}%`],
    );

  /** An app each of whose connections goes through a proxy that the test can cut. */
  const behindProxy = async (appName: string, options: Partial<TestAppOptions>) => {
    const target = new URL(base);
    const proxy = await new TcpProxy(target.hostname, Number(target.port || 5432)).start();
    const t = await createTestApp({ schema: schema.schema, url: proxy.urlFor(base), appName, poolTimeoutMs: 500, ...options });
    return { proxy, t };
  };

  beforeAll(async () => {
    schema = await createTestSchema('outage');
    admin = new Pool({ connectionString: base, max: 2 });
    recorder = new Pool({ connectionString: base, max: 4, application_name: 'outage-recorder' });
    await recorder.query(createInvocationsTableSql(schema.schema));
  });

  afterAll(async () => {
    await recorder?.end();
    await admin?.end();
    await schema?.drop();
  });

  it('recovers by itself when every connection is killed mid-drain: each job completes, at most twice', async () => {
    const t = await createTestApp({ schema: schema.schema, providers: handlers(), appName: 'outage-kill', engine: { concurrency: 8 } });
    try {
      await t.jobs.enqueueMany(Array.from({ length: 2000 }, () => ({ type: 'TEST_RECORD', payload: {} })));
      await waitFor(async () => ((await countByStatus(t.sql, schema.schema)).COMPLETED ?? 0) >= 300);
      const { rows } = await killConnections('outage-kill');
      expect(rows[0].n).toBeGreaterThan(0);
      await waitFor(async () => ((await countByStatus(t.sql, schema.schema)).COMPLETED ?? 0) === 2000, {
        timeoutMs: 60_000,
        message: 'every job to complete after the connections were killed',
      });
      const stats = await invocationStats(t.sql, schema.schema);
      expect(stats.distinct).toBe(2000);
      expect(stats.maxPerJob).toBeLessThanOrEqual(2);
      await waitFor(async () => (await request(t.app.getHttpServer()).get('/health/ready')).status === 200, {
        message: 'readiness to come back',
      });
    } finally {
      await t.close();
    }
  });

  it('answers 503 with Retry-After while the database is unreachable, stays live, and resumes after', async () => {
    const { proxy, t } = await behindProxy('outage-proxy', { providers: handlers() });
    const server = t.app.getHttpServer();
    const errors = jest.spyOn(Logger.prototype, 'error');
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    const submit = () =>
      request(server)
        .post('/jobs')
        .send({ type: 'TEST_RECORD', payload: { n: 1 } });
    try {
      expect((await submit()).status).toBe(201);
      proxy.cut();

      const started = Date.now();
      const refused = await submit();
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBeDefined();
      expect(refused.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable' });
      expect(Date.now() - started).toBeLessThan(3_000);
      expect((await request(server).get('/health/live')).status).toBe(200);
      const notReady = await waitFor(
        async () => {
          const probe = await request(server).get('/health/ready');
          return probe.status === 503 ? probe : null;
        },
        { message: 'readiness to go down' },
      );
      // The migrations check cannot know while the database is away; it does not claim they are missing.
      expect(notReady.body.details.migrations.message).toMatch(/^cannot tell: /);
      // Probed again and again while down: the change is logged, each failed probe is not.
      for (let i = 0; i < 5; i++) expect((await request(server).get('/health/ready')).status).toBe(503);
      expect(errors.mock.calls.filter(([message]) => String(message).includes('Health Check has failed'))).toEqual([]);
      expect(warnings.mock.calls.filter(([message]) => String(message).startsWith('Not ready:')).length).toBeLessThanOrEqual(2);

      proxy.restore();
      await waitFor(async () => (await request(server).get('/health/ready')).status === 200, {
        timeoutMs: 20_000,
        message: 'readiness to come back',
      });
      const after = await submit();
      expect(after.status).toBe(201);
      await waitFor(async () => (await t.jobs.get(after.body.id)).status === JobStatus.COMPLETED, {
        timeoutMs: 20_000,
        message: 'a job submitted after the outage to run',
      });
    } finally {
      errors.mockRestore();
      warnings.mockRestore();
      await t.close();
      await proxy.stop();
    }
  });

  it('writes the outcome of a job that finished during an outage longer than its lease, instead of rescuing it', async () => {
    const { proxy, t } = await behindProxy('outage-lease', {
      providers: [GatedHandler],
      engine: { leaseMs: 2_000, heartbeatIntervalMs: 500, maintenanceIntervalMs: 250 },
    });
    const row = async (id: string) =>
      (
        await admin.query<{ status: string; result: unknown; errors: unknown[]; expired_for_ms: number }>(
          `SELECT status, result, errors, extract(epoch FROM clock_timestamp() - locked_until) * 1000 AS expired_for_ms
           FROM ${t.jobsTable} WHERE id = $1`,
          [id],
        )
      ).rows[0];
    try {
      const job = await t.jobs.enqueue('GATED', {}, { maxAttempts: 1 });
      await waitFor(() => gate.started, { message: 'the job to start' });
      proxy.cut();
      gate.open!();
      // Unreachable until the lease has been over for a while: the completer waits at its longest pause by then.
      await waitFor(async () => (await row(job.id)).expired_for_ms > 4_000, { timeoutMs: 20_000, message: 'the lease to run out' });
      proxy.restore();

      const done = await waitFor(
        async () => {
          const r = await row(job.id);
          return r.status === JobStatus.RUNNING ? null : r;
        },
        { timeoutMs: 20_000, message: 'the job to end' },
      );
      expect({ status: done.status, result: done.result, errors: done.errors }).toEqual({
        status: JobStatus.COMPLETED,
        result: 'finished during the outage',
        errors: [],
      });
    } finally {
      await t.close();
      await proxy.stop();
    }
  });

  it('logs each reason of an outage once, not at every failed claim or reconnection, and says when claiming is back', async () => {
    const { proxy, t } = await behindProxy('outage-quiet', { providers: handlers(), engine: { pollIntervalMs: 50 } });
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    const notes = jest.spyOn(Logger.prototype, 'log');
    const saying = (spy: jest.SpyInstance, start: string) =>
      spy.mock.calls.map(([message]) => String(message)).filter((m) => m.startsWith(start));
    const said = (spy: jest.SpyInstance, start: string) => saying(spy, start).length;
    /** The claim warnings: each reason once (the first reset, then refused connections), however many claims failed. */
    const claimWarnings = () => {
      const warned = saying(warnings, 'Claim failed, database unavailable:');
      expect(new Set(warned).size).toBe(warned.length);
      return warned.length;
    };
    try {
      await waitFor(() => t.app.get(NotificationListener).isListening, { message: 'the LISTEN connection' });
      proxy.cut();
      // Every poll's claim and every reconnection of the LISTEN connection is refused while the database is away.
      await waitFor(() => proxy.refused >= 40, { timeoutMs: 20_000, message: 'many refused connection attempts' });
      expect(claimWarnings()).toBeGreaterThanOrEqual(1);
      expect(claimWarnings()).toBeLessThanOrEqual(3);
      expect(said(warnings, 'LISTEN connection lost')).toBe(1);

      proxy.restore();
      await waitFor(() => said(notes, 'Claiming again, after') === 1 && said(notes, 'Listening for new jobs again') === 1, {
        timeoutMs: 20_000,
        message: 'the log to say that claiming and listening are back',
      });
      const job = await t.jobs.enqueue('TEST_RECORD', {});
      await waitFor(async () => (await t.jobs.get(job.id)).status === JobStatus.COMPLETED, { message: 'a job after the outage' });
      expect(claimWarnings()).toBeLessThanOrEqual(3);
    } finally {
      warnings.mockRestore();
      notes.mockRestore();
      await t.close();
      await proxy.stop();
    }
  });

  it('shuts down within the grace period and the final writes while the database is away, saying what was left', async () => {
    const { proxy, t } = await behindProxy('outage-shutdown', { providers: [GatedHandler], engine: { shutdownGraceMs: 500 } });
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    try {
      gate.started = false;
      const job = await t.jobs.enqueue('GATED', {});
      await waitFor(() => gate.started, { message: 'the job to start' });
      proxy.cut();
      const closing = Date.now();
      await t.close();
      // The grace period, then at most FINAL_WRITES_MS for the hand-back that cannot be written, and a little more.
      expect(Date.now() - closing).toBeLessThan(500 + FINAL_WRITES_MS + 2_500);
      const said = warnings.mock.calls.map(([message]) => String(message));
      expect(said).toContainEqual('Worker stopped; 1 jobs were left to their leases (their outcomes could not be written)');
      expect(said.some((line) => line.includes('every claimed job was finished or handed back'))).toBe(false);
      const { rows } = await admin.query(`SELECT status FROM ${t.jobsTable} WHERE id = $1`, [job.id]);
      expect(rows[0].status).toBe(JobStatus.RUNNING);
    } finally {
      warnings.mockRestore();
      gate.open?.();
      await proxy.stop();
    }
  });

  it('keeps a flood of submissions within the connection pool: queued or refused, never a 500', async () => {
    const t = await createTestApp({
      schema: schema.schema,
      providers: handlers(),
      appName: 'outage-flood',
      poolSize: 3,
      poolTimeoutMs: 200,
      engine: { runWorkers: false },
    });
    const server = t.app.getHttpServer();
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'outage-flood'`);
        peak = Math.max(peak, rows[0].n);
        await new Promise((r) => setImmediate(r));
      }
    })();
    try {
      const responses = await Promise.all(
        Array.from({ length: 300 }, (_, i) => request(server).post('/jobs').send({ type: 'TEST_RECORD', payload: { i } })),
      );
      const statuses = new Set(responses.map((r) => r.status));
      for (const s of statuses) expect([201, 429, 503]).toContain(s);
      expect(responses.filter((r) => r.status === 201).length).toBeGreaterThan(0);
      sampling = false;
      await sampler;
      expect(peak).toBeLessThanOrEqual(3);
      const created = responses.filter((r) => r.status === 201).length;
      expect((await countByStatus(t.sql, schema.schema)).PENDING ?? 0).toBeGreaterThanOrEqual(created);
    } finally {
      sampling = false;
      await t.close();
    }
  });
});
