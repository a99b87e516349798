import { JobErrorKind, JobStatus } from '@conveyor/core';
import { LeaderElection } from '@conveyor/core/maintenance/leader-election.service';
import { RESCUE_BATCH } from '@conveyor/core/maintenance/lease-sweeper.service';
import { MaintenanceService } from '@conveyor/core/maintenance/maintenance.service';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

/**
 * A maintenance round is one statement (storage/statements/maintenance-round.sql.ts): every instance claims or
 * renews the leadership and writes its heartbeat; only the instance the claim returned a term to deletes dead
 * instances' rows and rescues expired leases. What each round did is read from the database.
 */
describe('maintenance round', () => {
  let schema: TestSchema;
  let first: TestApp;
  let second: TestApp;

  const table = (name: string) => `${schema.schema}.${name}`;
  const round = (app: TestApp) => app.app.get(MaintenanceService).tick();
  const expireTerm = () => first.sql.query(`UPDATE ${table('conveyor_leadership')} SET expires_at = now() - interval '1 millisecond'`);
  const leadership = async () =>
    (await first.sql.query<{ holder: string; term: string }>(`SELECT holder, term FROM ${table('conveyor_leadership')}`)).rows[0];

  const insertExpiredJobs = async (count: number, lockedBy = 'gone'): Promise<string[]> => {
    const { rows } = await first.sql.query<{ id: string }>(
      `INSERT INTO ${first.jobsTable} (type, payload, status, attempts, locked_by, locked_until, lease_token)
       SELECT 'NOBODY', '{}', 'RUNNING', 1, $2, now() - interval '1 second', gen_random_uuid() FROM generate_series(1, $1)
       RETURNING id`,
      [count, lockedBy],
    );
    return rows.map((r) => r.id);
  };
  const statusesOf = async (ids: string[]): Promise<Record<string, number>> => {
    const { rows } = await first.sql.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM ${first.jobsTable} WHERE id = ANY($1::uuid[]) GROUP BY status`,
      [ids],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  };

  /** A row left by an instance that died: its lease ran out a minute ago. */
  const insertDeadInstance = (id: string) =>
    first.sql.query(
      `INSERT INTO ${table('conveyor_instances')}
         (id, host, pid, version, runs_workers, concurrency, running, queues, types, started_at, last_seen, expires_at)
       VALUES ($1, 'gone-host', 1, '0.0.0', true, 1, 0, '{}', '{}', now() - interval '1 hour', now() - interval '2 minutes',
               now() - interval '1 minute')`,
      [id],
    );
  const instanceRows = async () =>
    (
      await first.sql.query<{ id: string; live: boolean }>(
        `SELECT id, expires_at > now() AS live FROM ${table('conveyor_instances')} ORDER BY id`,
      )
    ).rows;

  beforeAll(async () => {
    schema = await createTestSchema('maintenance_round');
    // Rounds are driven by the test: an hour apart, after the first at start-up.
    const engine = { runWorkers: false, maintenanceIntervalMs: 3_600_000 };
    first = await createTestApp({ schema: schema.schema, http: false, appName: 'round-first', engine: { ...engine, workerId: 'first' } });
    second = await createTestApp({
      schema: schema.schema,
      http: false,
      appName: 'round-second',
      engine: { ...engine, workerId: 'second' },
    });
    // The rounds each app starts with may still be running; a round asked for meanwhile is that one.
    await Promise.all([round(first), round(second)]);
  });

  afterAll(async () => {
    await second?.close();
    await first?.close();
    await schema?.drop();
  });

  beforeEach(async () => {
    await first.sql.query(`DELETE FROM ${first.jobsTable}`);
    await first.sql.query(`DELETE FROM ${table('conveyor_instances')}`);
    await expireTerm();
    await round(first);
    expect((await leadership()).holder).toBe('first');
  });

  it("the leader's round renews its term, writes its heartbeat, deletes dead instances' rows and rescues expired leases", async () => {
    const term = (await leadership()).term;
    const jobs = await insertExpiredJobs(3);
    await insertDeadInstance('dead');

    await round(first);

    expect(await leadership()).toEqual({ holder: 'first', term });
    expect(await statusesOf(jobs)).toEqual({ [JobStatus.RETRYING]: 3 });
    const { rows } = await first.sql.query<{ kind: string; worker: string; at: string }>(
      `SELECT errors->-1->>'kind' AS kind, errors->-1->>'worker' AS worker, errors->-1->>'at' AS at FROM ${first.jobsTable} WHERE id = $1`,
      [jobs[0]],
    );
    expect(rows[0]).toEqual({ kind: JobErrorKind.LEASE_EXPIRED, worker: 'gone', at: expect.any(String) });
    // The shape a worker writes its entries in (Date.toISOString()), whatever the session's time zone.
    expect(rows[0].at).toBe(new Date(rows[0].at).toISOString());
    expect(await instanceRows()).toEqual([{ id: 'first', live: true }]);
  });

  it('a round of an instance that does not lead writes its heartbeat, and neither rescues nor deletes rows', async () => {
    const jobs = await insertExpiredJobs(2);
    await insertDeadInstance('dead');

    await round(second);

    expect(await statusesOf(jobs)).toEqual({ [JobStatus.RUNNING]: 2 });
    expect(await instanceRows()).toEqual([
      { id: 'dead', live: false },
      { id: 'first', live: true },
      { id: 'second', live: true },
    ]);
    expect(second.app.get(LeaderElection).isLeader).toBe(false);
  });

  it('the round that takes a new term rescues in that same round, and the former leader no longer does', async () => {
    const former = Number((await leadership()).term);
    await expireTerm();
    const jobs = await insertExpiredJobs(2);

    await round(second);

    expect(await leadership()).toEqual({ holder: 'second', term: String(former + 1) });
    expect(second.app.get(LeaderElection).isLeader).toBe(true);
    expect(await statusesOf(jobs)).toEqual({ [JobStatus.RETRYING]: 2 });

    const later = await insertExpiredJobs(1);
    await round(first);
    expect(first.app.get(LeaderElection).isLeader).toBe(false);
    expect(await statusesOf(later)).toEqual({ [JobStatus.RUNNING]: 1 });
  });

  it('rescues more expired leases than one statement takes within the same round', async () => {
    const jobs = await insertExpiredJobs(2 * RESCUE_BATCH + 7);
    await round(first);
    expect(await statusesOf(jobs)).toEqual({ [JobStatus.RETRYING]: 2 * RESCUE_BATCH + 7 });
  });

  it("a failing rescue costs neither the leader's renewal nor its heartbeat; the rescue succeeds once it can", async () => {
    // A trigger that refuses to update one job makes the rescue, and so the round's statement, fail.
    await first.sql.query(`
      CREATE FUNCTION ${table('refuse_rescue')}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'rescue refused by the test'; END $$;
      CREATE TRIGGER refuse_rescue BEFORE UPDATE ON ${first.jobsTable}
        FOR EACH ROW WHEN (OLD.locked_by = 'refused') EXECUTE FUNCTION ${table('refuse_rescue')}()`);
    try {
      const job = await insertExpiredJobs(1, 'refused');
      const before = (
        await first.sql.query<{ term: string; lead_until: Date; seen: Date }>(
          `SELECT l.term, l.expires_at AS lead_until, i.last_seen AS seen
           FROM ${table('conveyor_leadership')} l, ${table('conveyor_instances')} i WHERE i.id = 'first'`,
        )
      ).rows[0];

      await round(first);

      const after = (
        await first.sql.query<{ holder: string; term: string; lead_until: Date; seen: Date }>(
          `SELECT l.holder, l.term, l.expires_at AS lead_until, i.last_seen AS seen
           FROM ${table('conveyor_leadership')} l, ${table('conveyor_instances')} i WHERE i.id = 'first'`,
        )
      ).rows[0];
      expect(after.holder).toBe('first');
      expect(after.term).toBe(before.term);
      expect(after.lead_until.getTime()).toBeGreaterThan(before.lead_until.getTime());
      expect(after.seen.getTime()).toBeGreaterThan(before.seen.getTime());
      expect(await statusesOf(job)).toEqual({ [JobStatus.RUNNING]: 1 });

      await first.sql.query(`DROP TRIGGER refuse_rescue ON ${first.jobsTable}`);
      await round(first);
      expect(await statusesOf(job)).toEqual({ [JobStatus.RETRYING]: 1 });
    } finally {
      await first.sql.query(`DROP TRIGGER IF EXISTS refuse_rescue ON ${first.jobsTable}`);
      await first.sql.query(`DROP FUNCTION IF EXISTS ${table('refuse_rescue')}()`);
    }
  });

  it("the leader's own row is never deleted as a dead instance's, even when its lease ran out", async () => {
    await first.sql.query(`UPDATE ${table('conveyor_instances')} SET expires_at = now() - interval '1 second' WHERE id = 'first'`);
    await round(first);
    expect(await instanceRows()).toEqual([{ id: 'first', live: true }]);
  });
});
