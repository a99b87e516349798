import { ConveyorDatabase } from '@conveyor/core/storage/connections/conveyor-database.service';
import { StatementDeadlineError } from '@conveyor/core/storage/connections/statement-deadline';
import { WorkerConnection } from '@conveyor/core/storage/connections/worker-connection.service';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

/**
 * An answer that takes longer to arrive than its statement's deadline, from a healthy database: rows of 100 kB, one
 * every 50 ms for a second, each sent as it is made. So does a claim of jobs with payloads of tens of MB arrive, in
 * seconds, and whatever is pipelined behind it on the worker connection waits that long too.
 */
const STREAMING = `SELECT pg_sleep(0.05), repeat('x', 100000) AS piece FROM generate_series(1, 20)`;
const DEADLINE = { deadlineMs: 300 };

describe('an answer that takes longer to arrive than the deadline', () => {
  let schema: TestSchema;
  let app: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('longanswer');
    app = await createTestApp({ schema: schema.schema, http: false, engine: { runWorkers: false } });
  });

  afterAll(async () => {
    await app?.close();
    await schema?.drop();
  });

  it('is read whole on a pooled connection, while it keeps coming', async () => {
    const started = Date.now();
    const { rows } = await app.app.get(ConveyorDatabase).pool.query<{ piece: string }>(STREAMING, [], DEADLINE);
    expect(rows).toHaveLength(20);
    expect(Date.now() - started).toBeGreaterThan(DEADLINE.deadlineMs);
  });

  it('is read whole on the worker connection, and the statement pipelined behind it is answered on the same connection', async () => {
    const runner = app.app.get(WorkerConnection).runner;
    await runner.query('SELECT 1', [], DEADLINE);
    const pid = (await runner.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', [], DEADLINE)).rows[0].pid;
    const [long, behind] = await Promise.all([
      runner.query<{ piece: string }>(STREAMING, [], DEADLINE),
      runner.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', [], DEADLINE),
    ]);
    expect(long.rows).toHaveLength(20);
    // Not abandoned: the same backend answered after it.
    expect(behind.rows[0].pid).toBe(pid);
  });

  it('still abandons a connection that stays silent past the deadline', async () => {
    const silent = app.app.get(ConveyorDatabase).pool.query('SELECT pg_sleep(1)', [], DEADLINE);
    await expect(silent).rejects.toMatchObject({ cause: expect.any(StatementDeadlineError) });
  });
});
