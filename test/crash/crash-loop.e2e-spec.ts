import { countByStatus } from '../support/job-queries';
import { invocationsTable, ProcessCrash } from '../support/recording-handler';
import type { TestApp } from '../support/test-app';
import type { TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';
import { CRASH_ENGINE, CrashControl, startCrashControl } from './support/crash-control';

describe('a handler that takes its process down, under a supervisor that restarts it', () => {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let crash: CrashControl;
  let control: TestApp;
  let supervising = false;
  let current: SpawnedWorker | undefined;
  let restarts = 0;
  /** How each supervised process ended (exit code or signal). */
  let exits: (number | string)[] = [];

  /** Restarts the worker whenever it exits, as systemd or Kubernetes would, each time under a new worker id. */
  const supervise = async (): Promise<void> => {
    supervising = true;
    while (supervising) {
      restarts += 1;
      current = spawnWorker({
        nodeArgs: ['--max-old-space-size=128'],
        url,
        schema: schema.schema,
        engine: { ...CRASH_ENGINE, workerId: `loop-${restarts}` },
        appName: `loop-${restarts}`,
      });
      exits.push(await current.exited);
    }
  };

  beforeAll(async () => {
    crash = await startCrashControl('crashloop');
    ({ schema, control } = crash);
  });

  afterEach(async () => {
    supervising = false;
    if (current && current.proc.exitCode === null && current.proc.signalCode === null) current.proc.kill('SIGTERM');
    await current?.exited;
    await control.sql.query(`TRUNCATE ${control.jobsTable}, ${invocationsTable(schema.schema)}`);
  });

  afterAll(async () => {
    await crash?.close();
  });

  /** Enqueues one job whose handler takes the process down and `neighbours` that sleep 1 s, all with 3 attempts. */
  const enqueue = async (how: ProcessCrash, neighbours: number): Promise<string> => {
    const { rows } = await control.sql.query<{ id: string }>(
      `INSERT INTO ${control.jobsTable} (type, payload, max_attempts) VALUES ('TEST_RECORD', $1, 3) RETURNING id`,
      [JSON.stringify({ crash: { how, afterMs: 300 }, hang: true })],
    );
    await control.sql.query(
      `INSERT INTO ${control.jobsTable} (type, payload, max_attempts)
       SELECT 'TEST_RECORD', '{"sleepMs": 1000}', 3 FROM generate_series(1, $1)`,
      [neighbours],
    );
    return rows[0].id;
  };
  /** Runs the worker under the supervisor until every one of `total` jobs has ended. */
  const runUntilAllEnd = async (total: number): Promise<void> => {
    restarts = 0;
    exits = [];
    const loop = supervise();
    await waitFor(
      async () => {
        const c = await countByStatus(control.sql, schema.schema);
        return (c.COMPLETED ?? 0) + (c.DEAD ?? 0) + (c.CANCELLED ?? 0) === total;
      },
      { timeoutMs: 60_000, message: 'every job to end' },
    );
    supervising = false;
    current?.proc.kill('SIGTERM');
    await loop;
  };
  const neighbourStatuses = async (poisonId: string): Promise<Record<string, number>> => {
    const { rows } = await control.sql.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM ${control.jobsTable} WHERE id <> $1 GROUP BY status`,
      [poisonId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  };

  it.each<ProcessCrash>(['exit', 'uncaught', 'unhandled-rejection', 'abort', 'out-of-memory'])(
    '%s: the job ends DEAD after its maxAttempts lost leases, and every job claimed with it ends',
    async (how) => {
      const poisonId = await enqueue(how, 7);
      await runUntilAllEnd(8);
      const poison = await control.jobs.get(poisonId);
      expect(poison.status).toBe('DEAD');
      expect(poison.attempts).toBe(3);
      expect(poison.errors.map((e) => e.kind)).toEqual(['lease-expired', 'lease-expired', 'lease-expired']);
      const { rows } = await control.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${invocationsTable(schema.schema)} WHERE job_id = $1`,
        [poisonId],
      );
      expect(rows[0].n).toBe(3);
      console.log(
        `${how}: ${restarts} worker starts, exits ${exits.join(' ')}; neighbours ${JSON.stringify(await neighbourStatuses(poisonId))}`,
      );
    },
    90_000,
  );
});
