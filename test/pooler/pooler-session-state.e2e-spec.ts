import { Client, Pool } from 'pg';
import { countByStatus } from '../support/job-queries';
import { PgBouncer, pgbouncerUnavailable } from '../support/pgbouncer';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const unavailable = pgbouncerUnavailable();
if (unavailable) console.warn(`pooler session-state test skipped: ${unavailable}`);

/** Session settings PgBouncer itself keeps in step with each client (it SETs them when it switches clients). */
const POOLER_TRACKED = ['application_name', 'client_encoding', 'datestyle', 'timezone', 'standard_conforming_strings'];

/** What a server connection carries from one transaction to the next, read on the connection itself. */
interface SessionState {
  pid: number;
  prepared: string[];
  channels: string[];
  settings: string[];
  advisoryLocks: number;
  tempRelations: number;
}

/**
 * Pooler mode keeps no session state. Behind a PgBouncer with ONE server connection and no reset query, two engine
 * instances (one per claim strategy) and their HTTP-free producer share that connection for every statement they
 * make: claims, outcome writes, heartbeats, retries, snoozes, leader election and lease rescue, migrations. Nothing
 * may break, and afterwards that connection — the one every statement ran on — holds no prepared statement, no
 * LISTEN, no setting of the engine's, no advisory lock and no temporary table. Without `listenUrl` no instance
 * LISTENs anywhere; they poll.
 */
(unavailable ? describe.skip : describe)('pooler mode holds no session state', () => {
  const direct = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let bouncer: PgBouncer;
  let schema: TestSchema;
  let recorder: Pool;
  const apps: TestApp[] = [];

  /** The state of the pool's one server connection, read through PgBouncer (so on that connection). */
  const sessionState = async (): Promise<SessionState> => {
    const client = new Client({ connectionString: bouncer.url() });
    await client.connect();
    try {
      const { rows } = await client.query<SessionState>(
        `SELECT pg_backend_pid() AS pid,
                ARRAY(SELECT name FROM pg_prepared_statements ORDER BY name) AS prepared,
                ARRAY(SELECT pg_listening_channels()) AS channels,
                ARRAY(SELECT lower(name) FROM pg_settings WHERE source IN ('session', 'client') ORDER BY name) AS settings,
                (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS "advisoryLocks",
                (SELECT count(*)::int FROM pg_class WHERE relnamespace = pg_my_temp_schema()) AS "tempRelations"`,
      );
      return rows[0];
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    bouncer = await PgBouncer.start(direct, { poolSize: 1, settings: { server_reset_query: '', server_reset_query_always: 0 } });
    schema = await createTestSchema('pooler_state');
    recorder = new Pool({ connectionString: bouncer.url(), max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    const common = {
      url: bouncer.url(),
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      http: false,
    };
    // Started one after the other: each runs the migrations, the second finds them applied.
    apps.push(
      await createTestApp({ ...common, appName: 'pooler-state-a', engine: { pooler: 'transaction', claimStrategy: 'skip-locked' } }),
    );
    apps.push(
      await createTestApp({ ...common, appName: 'pooler-state-b', engine: { pooler: 'transaction', claimStrategy: 'optimistic' } }),
    );
  }, 60_000);

  afterAll(async () => {
    for (const app of apps) await app.close();
    await recorder?.end();
    await schema?.drop();
    await bouncer?.stop();
  });

  it('runs every kind of job over one shared server connection and leaves nothing on it', async () => {
    const [a, b] = apps;
    const { rows: ghost } = await a.sql.query<{ id: string }>(
      `INSERT INTO ${a.jobsTable} (type, payload, status, attempts, locked_by, locked_until, lease_token)
       VALUES ('TEST_RECORD', '{}', 'RUNNING', 1, 'ghost', now() - interval '1 second', gen_random_uuid()) RETURNING id`,
    );
    await a.jobs.enqueueMany(Array.from({ length: 150 }, (_, n) => ({ type: 'TEST_RECORD', payload: { n } })));
    await b.jobs.enqueueMany([
      // Longer than two heartbeat intervals: their leases are extended while they run.
      ...Array.from({ length: 10 }, () => ({ type: 'TEST_RECORD', payload: { sleepMs: 1200 } })),
      ...Array.from({ length: 20 }, () => ({ type: 'TEST_RECORD', payload: { failTimes: 1 } })),
      ...Array.from({ length: 10 }, () => ({ type: 'TEST_RECORD', payload: { snoozeMs: 100 } })),
    ]);
    const first = await b.jobs.enqueue('TEST_RECORD', {}, { idempotencyKey: 'pooled-once' });
    expect((await a.jobs.enqueue('TEST_RECORD', {}, { idempotencyKey: 'pooled-once' })).id).toBe(first.id);

    const total = 1 + 150 + 40 + 1;
    const counts = await waitFor(
      async () => {
        const byStatus = await countByStatus(a.sql, schema.schema);
        return byStatus.COMPLETED === total ? byStatus : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, message: `all ${total} jobs to complete` },
    );
    expect(counts).toEqual({ COMPLETED: total });
    const { rows: workers } = await a.sql.query<{ worker: string }>(`SELECT DISTINCT worker FROM "${schema.schema}".test_invocations`);
    // Both instances worked (each claim strategy ran through the pooler), and the leader rescued the ghost's job.
    expect(workers).toHaveLength(2);
    const rescued = await a.jobs.get(ghost[0].id);
    expect(rescued.errors.map((e) => e.kind)).toEqual(['lease-expired']);

    // Every statement of both instances ran on the pool's one server connection: the one the probe reads.
    const servers = await bouncer.admin<{ remote_pid: number }>('SHOW SERVERS');
    expect(servers).toHaveLength(1);
    const state = await sessionState();
    expect(state.pid).toBe(servers[0].remote_pid);
    expect({ ...state, settings: state.settings.filter((s) => !POOLER_TRACKED.includes(s)) }).toEqual({
      pid: state.pid,
      prepared: [],
      channels: [],
      settings: [],
      advisoryLocks: 0,
      tempRelations: 0,
    });

    // No LISTEN connection was opened past the pooler either: without listenUrl, pooler mode polls.
    const { rows: listeners } = await a.sql.query(`SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'pooler-state-%:listener'`);
    expect(listeners).toEqual([]);

    // The probe would have seen a named statement: one a plain client prepares is there for the next client.
    const careless = new Client({ connectionString: bouncer.url() });
    await careless.connect();
    await careless.query({ name: 'careless_statement', text: 'SELECT 1' });
    await careless.end();
    expect((await sessionState()).prepared).toEqual(['careless_statement']);
  }, 60_000);
});
