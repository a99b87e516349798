import { Pool } from 'pg';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, FAST_ENGINE, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { SpawnedWorker, spawnWorker } from '../support/worker-processes';

const LIMIT_MS = 1_500;
const BLOCK_MS = 2_500;
/**
 * How long a probe waits for an answer: shorter than the block, so probes during it go unanswered, and long enough that
 * on a loaded machine a probe sent after it is answered within the window that reports it (2 × LIMIT_MS at least).
 */
const PROBE_TIMEOUT_MS = 1_000;

/** What a liveness probe got back. */
interface Answer {
  status: number;
  body: { status: string; error: Record<string, { message?: string; maxDelayMs?: number }> };
}

/**
 * Liveness of a real worker process whose event loop a handler blocks. While blocked, the process cannot answer
 * at all (the kubelet's probe times out); once the block is over, liveness reports it for a window, so probes keep
 * failing long enough for the orchestrator to see it; then it recovers.
 */
describe('liveness of a process whose event loop is blocked', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let producer: TestApp;
  let worker: SpawnedWorker;
  let baseUrl: string;

  beforeAll(async () => {
    schema = await createTestSchema('health_liveness');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    // Submits the job; runs no workers, so the spawned process is the one that blocks.
    producer = await createTestApp({
      schema: schema.schema,
      http: false,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { runWorkers: false },
    });
    worker = spawnWorker({
      url: process.env.CONVEYOR_TEST_DATABASE_URL!,
      schema: schema.schema,
      engine: { ...FAST_ENGINE, leaseMs: 30_000, heartbeatIntervalMs: 5_000, livenessEventLoopDelayMs: LIMIT_MS },
      http: true,
    });
    await worker.ready;
    baseUrl = `http://127.0.0.1:${worker.port()}`;
  }, 60_000);

  afterAll(async () => {
    if (worker && worker.proc.exitCode === null) {
      worker.proc.kill('SIGTERM');
      await worker.exited;
    }
    await producer?.close();
    await recorder?.end();
    await schema?.drop();
  });

  /** One liveness probe; null when there was no answer within its timeout (as a kubelet probe times out). */
  async function probe(): Promise<Answer | null> {
    try {
      const res = await fetch(`${baseUrl}/health/live`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
      return { status: res.status, body: (await res.json()) as Answer['body'] };
    } catch {
      return null;
    }
  }
  const answered = (status: number) => async () => {
    const p = await probe();
    return p?.status === status && p;
  };

  it('answers nothing while blocked, 503 naming the event loop right after, and 200 again once the window has passed', async () => {
    const healthy = await waitFor(answered(200));
    expect(healthy.body).toMatchObject({
      status: 'ok',
      info: { eventLoop: { status: 'up' }, claimLoop: { status: 'up' } },
    });

    await producer.jobs.enqueue('TEST_RECORD', { busyWaitMs: BLOCK_MS });

    // Blocked: the probe gets no answer, as the kubelet's would time out.
    await waitFor(async () => (await probe()) === null, { message: 'a probe to go unanswered while the loop is blocked' });
    // Over: liveness says what happened, with the measured delay, in terminus's format.
    const stuck = await waitFor(answered(503), { message: 'liveness to report the block' });
    expect(stuck.body.status).toBe('error');
    expect(stuck.body.error.eventLoop.message).toMatch(new RegExp(`^the event loop was blocked for \\d+ ms \\(limit ${LIMIT_MS} ms\\)$`));
    expect(stuck.body.error.eventLoop.maxDelayMs).toBeGreaterThanOrEqual(BLOCK_MS - 100);
    // The block does not end the process or its work: the job completed.
    await waitFor(async () => (await producer.sql.query(`SELECT 1 FROM ${producer.jobsTable} WHERE status = 'COMPLETED'`)).rowCount === 1, {
      message: 'the blocking job to complete',
    });

    // Once the block has left the window, liveness recovers by itself.
    await waitFor(answered(200), { message: 'liveness to recover' });
  }, 60_000);
});
