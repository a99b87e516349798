import { JobStatus } from '@conveyor/core';
import { LeaderElection } from '@conveyor/core/maintenance/leader-election.service';
import { LeaseSweeper } from '@conveyor/core/maintenance/lease-sweeper.service';
import { MaintenanceService } from '@conveyor/core/maintenance/maintenance.service';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

/**
 * The maintenance leadership lease: one holder at a time, taken over only once its term has run out, and a former
 * leader's maintenance writes fenced by its term.
 */
describe('maintenance leadership', () => {
  let schema: TestSchema;
  let first: TestApp;
  let second: TestApp;

  const expireTerm = () => first.sql.query(`UPDATE ${schema.schema}.conveyor_leadership SET expires_at = now() - interval '1 millisecond'`);
  const insertExpiredJob = async (): Promise<string> => {
    const { rows } = await first.sql.query<{ id: string }>(
      `INSERT INTO ${first.jobsTable} (type, payload, status, attempts, locked_by, locked_until, lease_token)
       VALUES ('NOBODY', '{}', 'RUNNING', 1, 'gone', now() - interval '1 second', gen_random_uuid()) RETURNING id`,
    );
    return rows[0].id;
  };
  const statusOf = async (id: string): Promise<string> =>
    (await first.sql.query<{ status: string }>(`SELECT status FROM ${first.jobsTable} WHERE id = $1`, [id])).rows[0].status;

  beforeAll(async () => {
    schema = await createTestSchema('leadership');
    // Maintenance rounds of their own would race the test's calls: an hour apart, after the first at start-up.
    const engine = { runWorkers: false, maintenanceIntervalMs: 3_600_000 };
    first = await createTestApp({ schema: schema.schema, http: false, appName: 'lead-first', engine: { ...engine, workerId: 'first' } });
    second = await createTestApp({ schema: schema.schema, http: false, appName: 'lead-second', engine: { ...engine, workerId: 'second' } });
    // The rounds each app starts with may still be running, and one that ends after a test released the leadership
    // would take it; a round asked for meanwhile is that one.
    await Promise.all([first.app.get(MaintenanceService).tick(), second.app.get(MaintenanceService).tick()]);
  });

  afterAll(async () => {
    await second?.close();
    await first?.close();
    await schema?.drop();
  });

  it('has one holder; another takes over only after the term ran out, with a new term that fences the old one', async () => {
    const a = first.app.get(LeaderElection);
    const b = second.app.get(LeaderElection);
    await a.release();
    await b.release();
    await expireTerm();

    const termA = await a.acquire();
    expect(termA).not.toBeNull();
    expect(await b.acquire()).toBeNull();
    expect(await a.acquire()).toEqual(termA);
    expect(a.isLeader).toBe(true);
    expect(b.isLeader).toBe(false);

    await expireTerm();
    const termB = await b.acquire();
    expect(termB).not.toBeNull();
    expect(termB!.term).toBeGreaterThan(termA!.term);

    // The former leader's rescue, sent with its old term, changes nothing; the new leader's rescues the job.
    const job = await insertExpiredJob();
    expect(await first.app.get(LeaseSweeper).sweep(termA!)).toBe(0);
    expect(await statusOf(job)).toBe(JobStatus.RUNNING);
    expect(await second.app.get(LeaseSweeper).sweep(termB!)).toBe(1);
    expect(await statusOf(job)).toBe(JobStatus.RETRYING);

    // Its renewal is refused too: it learns it no longer leads.
    expect(await a.acquire()).toBeNull();
    expect(a.isLeader).toBe(false);
  });

  it('a leader that resigns is replaced at the next try, without waiting for its term to run out', async () => {
    const a = first.app.get(LeaderElection);
    const b = second.app.get(LeaderElection);
    await a.release();
    await b.release();
    await expireTerm();
    expect(await a.acquire()).not.toBeNull();
    expect(await b.acquire()).toBeNull();
    await a.release();
    expect(await b.acquire()).not.toBeNull();
  });
});
