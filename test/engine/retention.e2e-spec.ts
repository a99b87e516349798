import { MaintenanceService } from '@conveyor/core/maintenance/maintenance.service';
import { LiveWatchDetector } from '@conveyor/core/observation/live/live-watch-detector.service';
import { openSse } from '../live/support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** Old COMPLETED jobs are deleted in batches by the leader; DEAD jobs stay until retried or purged. */
describe('retention', () => {
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('retention');
    t = await createTestApp({
      schema: schema.schema,
      engine: { runWorkers: false, retentionCompletedMs: 60_000, retentionBatchSize: 100, maintenanceIntervalMs: 100 },
      http: false,
    });
  });
  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  it('deletes completed jobs past the retention period, keeps recent ones and every DEAD job', async () => {
    const insert = (n: number, status: string, age: string) =>
      t.sql.query(
        `INSERT INTO ${t.jobsTable} (type, status, finished_at)
         SELECT 'X', $1, now() - $2::interval FROM generate_series(1, $3)`,
        [status, age, n],
      );
    await insert(1050, 'COMPLETED', '2 minutes');
    await insert(20, 'COMPLETED', '10 seconds');
    await insert(30, 'DEAD', '30 days');
    const count = async (status: string) =>
      (await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable} WHERE status = $1`, [status])).rows[0].n as number;

    await t.app.get(MaintenanceService).tick();
    await waitFor(async () => (await count('COMPLETED')) === 20, { message: 'old completed jobs to be deleted' });
    expect(await count('DEAD')).toBe(30);
    const { rows } = await t.sql.query(
      `SELECT min(finished_at) > now() - interval '1 minute' AS recent FROM ${t.jobsTable} WHERE status = 'COMPLETED'`,
    );
    expect(rows[0].recent).toBe(true);
  });
});

/** The longest retention validation takes still gives a cut-off PostgreSQL can compute. */
describe('retention at its longest', () => {
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('retention_longest');
    t = await createTestApp({
      schema: schema.schema,
      engine: { runWorkers: false, retentionCompletedMs: 100 * 365 * 86_400_000, maintenanceIntervalMs: 100 },
      http: false,
    });
  });
  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  it('deletes a job finished more than a century ago and keeps one finished a year ago', async () => {
    await t.sql.query(
      `INSERT INTO ${t.jobsTable} (type, status, finished_at) VALUES ('X', 'COMPLETED', now() - interval '101 years'), ('X', 'COMPLETED', now() - interval '1 year')`,
    );
    await t.app.get(MaintenanceService).tick();
    const remaining = async () =>
      (await t.sql.query(`SELECT finished_at > now() - interval '2 years' AS recent FROM ${t.jobsTable}`)).rows as { recent: boolean }[];
    await waitFor(async () => (await remaining()).length === 1, { message: 'the century-old job to be deleted' });
    expect(await remaining()).toEqual([{ recent: true }]);
  });
});

/** A job deleted by retention is announced as a purged one is, so that a stream following it ends. */
describe('retention and live streams', () => {
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('retention_live');
    t = await createTestApp({
      schema: schema.schema,
      listen: true,
      engine: { runWorkers: false, retentionCompletedMs: 60_000, maintenanceIntervalMs: 100 },
    });
  });
  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  it("sends DELETED for each job it deletes, and ends the job's own stream", async () => {
    const { rows } = await t.sql.query(
      `INSERT INTO ${t.jobsTable} (type, queue, status, finished_at) VALUES ('OLD', 'kept-long', 'COMPLETED', now()) RETURNING id`,
    );
    const id = rows[0].id as string;
    const own = await openSse(`${t.baseUrl}/jobs/${id}/events`);
    const deletions = await openSse(`${t.baseUrl}/events?status=DELETED`);
    await own.waitForJob((e) => e.id === id && e.status === 'COMPLETED', 'the current state');
    await waitFor(() => t.app.get(LiveWatchDetector).watched, { message: 'the watch lease to be seen' });

    // Past the retention period only now: the leader's own maintenance runs retention every few ticks, and would
    // otherwise delete the job before its stream opened or before the watch lease was seen.
    await t.sql.query(`UPDATE ${t.jobsTable} SET finished_at = now() - interval '2 minutes' WHERE id = $1`, [id]);
    await t.app.get(MaintenanceService).tick();
    const deleted = await deletions.waitForJob((e) => e.id === id && e.status === 'DELETED', 'the deletion on GET /events');
    expect(deleted).toMatchObject({ queue: 'kept-long', type: 'OLD' });
    await own.waitForJob((e) => e.id === id && e.status === 'DELETED', "the deletion on the job's stream");
    await waitFor(() => own.ended, { message: "the job's stream to end" });
    deletions.close();
  });
});
