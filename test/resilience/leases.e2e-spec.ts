import { Pool } from 'pg';
import { JobStatus } from '@conveyor/core';
import { LeaderElection } from '@conveyor/core/maintenance/leader-election.service';
import { invocationStats } from '../support/job-queries';
import { createInvocationsTableSql, invocationsTable, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';

/**
 * Leases, heartbeats, rescue and fencing, with real worker processes. The app in this process does not
 * run jobs; it is the maintenance leader, so it is the one that sweeps expired leases.
 */
describe('leases, heartbeats and rescue', () => {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let control: TestApp;
  let recorder: Pool;
  const workers: SpawnedWorker[] = [];
  const LEASE = { leaseMs: 1500, heartbeatIntervalMs: 400, pollIntervalMs: 100 };

  const job = (id: string) => control.jobs.get(id);
  const start = async (name: string) => {
    const w = spawnWorker({ url, schema: schema.schema, engine: { ...LEASE, workerId: name }, appName: name });
    workers.push(w);
    await w.ready;
    return w;
  };

  beforeAll(async () => {
    schema = await createTestSchema('leases');
    recorder = new Pool({ connectionString: url, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    control = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { runWorkers: false, maintenanceIntervalMs: 200 },
    });
    await waitFor(() => control.app.get(LeaderElection).isLeader, { message: 'the control app to lead maintenance' });
  });

  afterAll(async () => {
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL');
    await control?.close();
    await recorder?.end();
    await schema?.drop();
  });

  it('extends the lease of a running job automatically, so a job longer than the lease runs once', async () => {
    await start('lease-a');
    const j = await control.jobs.enqueue('TEST_RECORD', { sleepMs: 4 * LEASE.leaseMs });
    const done = await waitFor(async () => ((await job(j.id)).status === JobStatus.COMPLETED ? job(j.id) : null), {
      timeoutMs: 20_000,
    });
    expect(done.attempts).toBe(1);
    expect(done.errors).toEqual([]);
    const { rows } = await recorder.query(`SELECT count(*)::int AS n FROM ${invocationsTable(schema.schema)} WHERE job_id = $1`, [j.id]);
    expect(rows[0].n).toBe(1);
  });

  it("keeps extending the other leases while one held job's row stays locked, so each of them runs once", async () => {
    // lease-a (the first case's worker) is the only worker. The locked job is enqueued first, so its id comes first in
    // the order the outcome writes lock rows in.
    const locked = await control.jobs.enqueue('TEST_RECORD', { sleepMs: 3 * LEASE.leaseMs });
    const others = await Promise.all([1, 2, 3].map(() => control.jobs.enqueue('TEST_RECORD', { sleepMs: 4 * LEASE.leaseMs })));
    const ids = [locked.id, ...others.map((o) => o.id)];
    await waitFor(async () => (await Promise.all(ids.map(job))).every((r) => r.status === JobStatus.RUNNING), {
      message: 'all four jobs to be running',
    });
    // Another transaction holds the row, as an outcome write storing a large result does while it runs.
    const holder = await control.sql.connect();
    try {
      await holder.query('BEGIN');
      const { rows } = await holder.query<{ at: Date }>(`SELECT now() AS at FROM ${control.jobsTable} WHERE id = $1 FOR UPDATE`, [
        locked.id,
      ]);
      const lockedAt = rows[0].at;
      const { rows: claims } = await control.sql.query<{ id: string; lease_token: string }>(
        `SELECT id, lease_token FROM ${control.jobsTable} WHERE id = ANY($1::uuid[])`,
        [others.map((o) => o.id)],
      );
      // A heartbeat later than the others' leases would have run out since the lock was taken extended them, under
      // the claims they were running under (not a new claim after a rescue).
      await waitFor(
        async () => {
          const { rows: extended } = await control.sql.query(
            `SELECT j.id FROM ${control.jobsTable} j JOIN unnest($1::uuid[], $2::uuid[]) AS c(id, token) ON j.id = c.id
             WHERE j.lease_token = c.token AND j.status = 'RUNNING' AND j.locked_until > $3::timestamptz + $4 * interval '1 millisecond'`,
            [claims.map((c) => c.id), claims.map((c) => c.lease_token), lockedAt, 2 * LEASE.leaseMs],
          );
          return extended.length === others.length;
        },
        { timeoutMs: 4 * LEASE.leaseMs, message: "the others' leases to be extended past the lock" },
      );
    } finally {
      await holder.query('COMMIT').catch(() => undefined);
      holder.release();
    }
    const ended = await waitFor(
      async () => {
        const jobs = await Promise.all(ids.map(job));
        return jobs.every((r) => r.status === JobStatus.COMPLETED || r.status === JobStatus.DEAD) ? jobs : null;
      },
      { timeoutMs: 30_000, message: 'the four jobs to end' },
    );
    for (const other of ended.slice(1)) expect(other).toMatchObject({ status: JobStatus.COMPLETED, attempts: 1, errors: [] });
    // The locked job's own lease could not be extended: its attempt was given up and it ran again.
    expect(ended[0]).toMatchObject({ status: JobStatus.COMPLETED, attempts: 2 });
    expect(ended[0].errors.map((e) => e.kind)).toEqual(['lease-expired']);
    const { rows } = await recorder.query<{ job_id: string; n: number }>(
      `SELECT job_id, count(*)::int AS n FROM ${invocationsTable(schema.schema)} WHERE job_id = ANY($1::uuid[]) GROUP BY job_id`,
      [others.map((o) => o.id)],
    );
    expect(rows.map((r) => r.n)).toEqual([1, 1, 1]);
  });

  it('rescues the job of a frozen worker, and fences the old worker out when it wakes up', async () => {
    const frozen = await start('lease-frozen');
    const j = await control.jobs.enqueue('TEST_RECORD', { sleepMs: 2 * LEASE.leaseMs, ignoreSignal: true });
    const running = await waitFor(async () => {
      const r = await job(j.id);
      return r.status === JobStatus.RUNNING && r.lockedBy?.startsWith('lease-') ? r : null;
    });
    // RUNNING in the database means claimed, not yet started: wait for the handler to have begun, so the freeze
    // lands mid-run (a job frozen before it started is dropped unrun on waking, a different path).
    await waitFor(
      async () => {
        const { rows } = await recorder.query(`SELECT 1 FROM ${invocationsTable(schema.schema)} WHERE job_id = $1`, [j.id]);
        return rows.length > 0;
      },
      { message: 'the handler to start' },
    );
    // Freeze whichever worker holds it (both are alive; only the holder matters).
    const holder = workers.find((w) => running.lockedBy === (w === frozen ? 'lease-frozen' : 'lease-a'))!;
    holder.proc.kill('SIGSTOP');
    const rescuedAt = Date.now();
    const rescued = await waitFor(
      async () => {
        const r = await job(j.id);
        return r.errors.some((e) => e.kind === 'lease-expired') ? r : null;
      },
      { timeoutMs: 15_000, message: 'the sweeper to rescue the frozen job' },
    );
    const entry = rescued.errors.find((e) => e.kind === 'lease-expired')!;
    expect(entry.worker).toBe(running.lockedBy);
    expect(rescued.lastError).toContain(running.lockedBy!);

    // The other worker (not frozen) runs it again and completes it.
    const completed = await waitFor(async () => ((await job(j.id)).status === JobStatus.COMPLETED ? job(j.id) : null), {
      timeoutMs: 15_000,
    });
    expect(completed.result).toEqual({ ok: true, attempt: 2 });
    const recoveryMs = Date.now() - rescuedAt;

    // Wake the frozen worker: its heartbeat and its completion must change nothing.
    holder.proc.kill('SIGCONT');
    await waitFor(() => /Lost the claim|Stale outcome/.test(holder.output()), {
      timeoutMs: 15_000,
      message: 'the stale write to be logged',
    });
    const after = await job(j.id);
    expect(after.status).toBe(JobStatus.COMPLETED);
    expect(after.result).toEqual({ ok: true, attempt: 2 });
    expect(after.version).toBe(completed.version);
    expect(after.finishedAt).toEqual(completed.finishedAt);
    console.log(`frozen worker: rescued and completed elsewhere within ${recoveryMs} ms of the freeze`);
  });

  it('marks a rescued job DEAD when the lost attempt was its last one', async () => {
    const j = await control.jobs.enqueue('TEST_RECORD', { sleepMs: 60_000 }, { maxAttempts: 1 });
    const running = await waitFor(async () => ((await job(j.id)).status === JobStatus.RUNNING ? job(j.id) : null));
    expect(running.lockedBy).toMatch(/^lease-/);
    // Kill every live worker: the job's holder is among them.
    for (const w of workers) if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL');
    const dead = await waitFor(async () => ((await job(j.id)).status === JobStatus.DEAD ? job(j.id) : null), { timeoutMs: 15_000 });
    expect(dead.errors.map((e) => e.kind)).toEqual(['lease-expired']);
    expect(dead.lockedBy).toBeNull();
    expect(dead.finishedAt).not.toBeNull();
    const stats = await invocationStats(recorder, schema.schema);
    expect(stats.maxPerJob).toBeLessThanOrEqual(2);
  });
});
