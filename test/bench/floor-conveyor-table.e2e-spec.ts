import { Pool } from 'pg';
import { FloorLoopsWorker } from '../../bench/floor/floor-loops-worker';
import { floorCounts, floorCreateSql, floorInsertMany, floorTables } from '../../bench/floor/floor.sql';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/**
 * The bench's `floor-conveyor-table` reference: the floor's loops and statements on Conveyor's jobs table, created
 * from the schema snapshot. Its ratio to the floor is only meaningful if it does the floor's work on that table: every
 * job claimed once and left COMPLETED with a finish time, an insert waking the worker through the table's own trigger.
 */
describe("the floor's loops on Conveyor's jobs table (bench reference floor-conveyor-table)", () => {
  let schema: TestSchema;
  let pool: Pool;
  let worker: FloorLoopsWorker | undefined;

  beforeAll(async () => {
    schema = await createTestSchema('floortable');
    pool = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 4 });
  });

  afterAll(async () => {
    await worker?.stop();
    await pool?.end();
    await schema?.drop();
  });

  it('drains what it inserts, each job started once, every row COMPLETED with its finish time', async () => {
    const t = floorTables(schema.schema, 'conveyor');
    await pool.query(floorCreateSql(t));
    const started = new Map<string, number>();
    worker = new FloorLoopsWorker(
      pool,
      4,
      t,
      { concurrency: 4, claimBatchSize: 10, prefetch: 0, pollIntervalMs: 60_000, completionBatchSize: 10, completionFlushMs: 0 },
      { onStart: (id) => started.set(id, (started.get(id) ?? 0) + 1) },
      { connectionString: process.env.CONVEYOR_TEST_DATABASE_URL },
    );
    await worker.start();

    // The poll is a minute away: only the NOTIFY of Conveyor's insert trigger, on the floor's channel, wakes the loops.
    await pool.query(
      floorInsertMany(
        t,
        Array.from({ length: 120 }, (_, n) => ({ n })),
      ),
    );
    await waitFor(
      async () => {
        const { rows } = await pool.query<{ total: number; done: number }>(floorCounts(t));
        return rows[0].done === 120;
      },
      { message: 'all 120 jobs completed' },
    );

    expect(started.size).toBe(120);
    expect([...started.values()].every((n) => n === 1)).toBe(true);
    const { rows } = await pool.query<{ status: string; finished: boolean; n: number }>(
      `SELECT status, finished_at IS NOT NULL AS finished, count(*)::int AS n FROM ${t.jobs} GROUP BY 1, 2`,
    );
    expect(rows).toEqual([{ status: 'COMPLETED', finished: true, n: 120 }]);
  });
});
