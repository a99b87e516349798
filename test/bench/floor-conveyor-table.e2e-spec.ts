import { Client } from 'pg';
import { floorTables } from '../../bench/floor/floor-tables';
import { BENCH_JOB_TYPE, BenchQueue } from '../../bench/shared/bench-queue.interface';
import { createBenchQueue } from '../../bench/queues/create-bench-queue';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/**
 * The bench's `floor-conveyor-table` reference: the floor's loops and statements on Conveyor's jobs table, created
 * from the schema snapshot. Its ratio to the floor means something only if it does the floor's work on that table:
 * the table's own insert trigger announcing inserts on the floor's channel, every job claimed once and left
 * COMPLETED with a finish time.
 */
describe("the floor's loops on Conveyor's jobs table (bench reference floor-conveyor-table)", () => {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let queue: BenchQueue | undefined;
  let listener: Client | undefined;

  beforeAll(async () => {
    schema = await createTestSchema('floortable');
  });

  afterAll(async () => {
    await listener?.end();
    await queue?.close();
    await schema?.drop();
  });

  it('drains what it enqueues, each job started once, every row COMPLETED with its finish time', async () => {
    queue = createBenchQueue('floor-conveyor-table', url, schema.schema, 'floortable-test');
    await queue.setup();
    const notices: string[] = [];
    listener = new Client({ connectionString: url });
    listener.on('notification', (msg) => notices.push(msg.channel));
    await listener.connect();
    await listener.query(`LISTEN ${floorTables(schema.schema, 'conveyor').channel}`);

    const started = new Map<string, number>();
    await queue.prepareWorker(
      { concurrency: 4, claimBatchSize: 10, prefetch: 0, pollIntervalMs: 60_000, completionBatchSize: 10, completionFlushMs: 0 },
      { onStart: (id) => started.set(id, (started.get(id) ?? 0) + 1) },
    );
    await queue.startWorker();
    await queue.enqueueMany(120, 40);

    // Conveyor's insert trigger, on the table as its migrations leave it, tells the floor's channel.
    await waitFor(() => notices.length > 0, { message: "a NOTIFY on the floor's channel" });
    await waitFor(async () => (await queue!.counts()).done === 120, { message: 'all 120 jobs completed' });
    expect(started.size).toBe(120);
    expect([...started.values()].every((n) => n === 1)).toBe(true);
    const { rows } = await listener.query<{ type: string; status: string; finished: boolean; n: number }>(
      `SELECT type, status, finished_at IS NOT NULL AS finished, count(*)::int AS n FROM "${schema.schema}".conveyor_jobs GROUP BY 1, 2, 3`,
    );
    expect(rows).toEqual([{ type: BENCH_JOB_TYPE, status: 'COMPLETED', finished: true, n: 120 }]);
  });
});
