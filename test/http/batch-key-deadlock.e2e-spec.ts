import { Job, JobStatus } from '@conveyor/core';
import { PoolClient } from 'pg';
import { waitFor } from '../support/wait-for';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

const APP_NAME = 'conveyor-batch-key-deadlock';

/**
 * Batches racing each other over the same keys: a row waits for a key another transaction has taken and not yet
 * committed, holding the keys before it, so two batches taking the same keys in opposite orders can wait for each
 * other. PostgreSQL aborts one of them to break the deadlock; that batch is run again, never answered with a 500.
 */
describe('POST /jobs/batch racing another over the same keys', () => {
  let t: RestTestApp;
  const later = { delayMs: 3_600_000 };
  const live = (key: string) =>
    t.rows("type = 'TEST_RECORD' AND unique_key = $1 AND status IN ('SCHEDULED','PENDING','RETRYING','RUNNING')", [key]);
  const batch = (keys: string[], field: 'uniqueKey' | 'idempotencyKey') =>
    t
      .api()
      .post('/jobs/batch')
      .send({ jobs: keys.map((k) => ({ type: 'TEST_RECORD', payload: { k }, [field]: k, ...later })) })
      .then((res) => res);
  /** Backends of this app waiting for a lock held by `pid`. */
  const waitingFor = async (pid: number) =>
    (
      await t.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = $1 AND $2 = ANY(pg_blocking_pids(pid))`,
        [APP_NAME, pid],
      )
    ).rows[0].n;
  /** Another client's transaction holds `key` (as unique and as idempotency key) with a job it has not committed. */
  const holdKey = async (client: PoolClient, key: string) =>
    client.query(
      `INSERT INTO ${t.jobsTable} (id, queue, type, payload, status, run_at, unique_key, idempotency_key, idempotency_hash)
       VALUES (gen_random_uuid(), 'default', 'TEST_RECORD', '{}', 'SCHEDULED', now() + interval '1 hour', $1, $1, 'other')`,
      [key],
    );

  beforeAll(async () => {
    t = await createRestTestApp('http_batch_key_deadlock', { appName: APP_NAME, engine: { runWorkers: false } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it.each<['uniqueKey' | 'idempotencyKey']>([['uniqueKey'], ['idempotencyKey']])(
    'two batches taking the same %s values in opposite orders: both 201 with the same jobs, one job per key',
    async (field) => {
      const [a, b, gateKey] = ['a', 'b', 'gate'].map((k) => `${field}-${k}`);
      const gate = await t.sql.connect();
      try {
        // Each batch takes its first key and then waits at the gate; once it opens, each goes on to the key the other
        // holds. The gate's own transaction is never the one PostgreSQL aborts.
        await gate.query("BEGIN; SET LOCAL deadlock_timeout = '60s'");
        await holdKey(gate, gateKey);
        const pid = (await gate.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
        const first = batch([a, gateKey, b], field);
        const second = batch([b, gateKey, a], field);
        await waitFor(async () => (await waitingFor(pid)) === 2, { message: 'both batches to wait at the gate' });
        await gate.query('ROLLBACK');
        const answers = await Promise.all([first, second]);

        expect(answers.map((r) => r.status)).toEqual([201, 201]);
        const byKey = (jobs: Job[]) => Object.fromEntries(jobs.map((j) => [j[field], j.id]));
        const [one, two] = answers.map((r) => byKey(r.body.jobs as Job[]));
        expect(two).toEqual(one);
        const stored = await t.rows(`${field === 'uniqueKey' ? 'unique_key' : 'idempotency_key'} = ANY($1)`, [[a, b, gateKey]]);
        expect(Object.fromEntries(stored.map((r) => [r[field === 'uniqueKey' ? 'unique_key' : 'idempotency_key'], r.id]))).toEqual(one);
        if (field === 'uniqueKey') for (const key of [a, b, gateKey]) expect(await live(key)).toHaveLength(1);
        expect(stored.map((r) => r.status)).toEqual([JobStatus.SCHEDULED, JobStatus.SCHEDULED, JobStatus.SCHEDULED]);
      } finally {
        await gate.query('ROLLBACK').catch(() => undefined);
        gate.release();
      }
    },
  );
});
