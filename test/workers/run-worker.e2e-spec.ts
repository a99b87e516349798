import { randomUUID } from 'node:crypto';
import {
  ClaimedJob,
  ConveyorClient,
  LeaseLostError,
  PermanentJobError,
  RetryLaterError,
  runWorker,
  RunWorkerOptions,
  WorkerHandle,
  WorkerHandler,
  WorkerStoppedError,
} from '@conveyor/client';
import { JobStatus } from '@conveyor/core';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const TYPE = 'EXT_LOOP';

/** A promise with its resolve function, to hold a handler until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** The outcomes a `runWorker` handler can steer, and how the loop stops, against the real service. */
describe('runWorker', () => {
  let schema: TestSchema;
  let t: TestApp;
  let client: ConveyorClient;
  const running: WorkerHandle[] = [];

  const enqueue = async (queue: string, payload: Record<string, unknown> = {}) =>
    (await t.jobs.enqueue(TYPE, payload, { queue, maxAttempts: 3 })).id;
  const row = async (id: string) => (await t.sql.query(`SELECT * FROM ${t.jobsTable} WHERE id = $1`, [id])).rows[0];
  const reach = (id: string, status: JobStatus) =>
    waitFor(async () => ((await row(id))?.status === status ? row(id) : null), { message: `job ${id} to be ${status}` });
  const start = <P>(queue: string, handler: WorkerHandler<P>, options: RunWorkerOptions) => {
    const worker = runWorker(queue, handler, options);
    running.push(worker);
    return worker;
  };

  beforeAll(async () => {
    schema = await createTestSchema('run_worker');
    t = await createTestApp({ schema: schema.schema, listen: true, engine: { runWorkers: false, externalTypes: [TYPE] } });
    client = new ConveyorClient({ baseUrl: t.baseUrl });
  });

  afterAll(async () => {
    await Promise.allSettled(running.map((w) => w.stop()));
    await t?.close();
    await schema?.drop();
  });

  it('completes with the returned value, retries at the time asked, gives up on PermanentJobError, and stops on its signal', async () => {
    const queue = 'loop-outcomes';
    const later = new Date(Date.now() + 3_600_000);
    const ids = {
      done: await enqueue(queue, { kind: 'done' }),
      later: await enqueue(queue, { kind: 'later' }),
      permanent: await enqueue(queue, { kind: 'permanent' }),
      failed: await enqueue(queue, { kind: 'failed' }),
      longName: await enqueue(queue, { kind: 'longName' }),
    };
    const abort = new AbortController();
    const worker = start(
      queue,
      (job: ClaimedJob<{ kind: string }>) => {
        if (job.payload.kind === 'later') throw new RetryLaterError(later, 'busy until later');
        if (job.payload.kind === 'permanent') throw new PermanentJobError('never');
        if (job.payload.kind === 'failed') throw new RangeError('out of range');
        if (job.payload.kind === 'longName') throw Object.assign(new Error('odd class'), { name: 'N'.repeat(300) });
        return { ok: job.id };
      },
      { client, concurrency: 5, workerId: 'loop-1', signal: abort.signal, idleBackoff: { minMs: 10, maxMs: 50 } },
    );

    expect(await reach(ids.done, JobStatus.COMPLETED)).toMatchObject({ result: { ok: ids.done }, attempts: 1 });
    const snoozed = await reach(ids.later, JobStatus.RETRYING);
    expect(snoozed).toMatchObject({ attempts: 0, snoozes: 1, last_error: 'RetryLaterError: busy until later' });
    expect(Math.abs((snoozed.run_at as Date).getTime() - later.getTime())).toBeLessThan(1_000);
    expect(await reach(ids.permanent, JobStatus.DEAD)).toMatchObject({ attempts: 1, last_error: 'PermanentJobError: never' });
    const failed = await reach(ids.failed, JobStatus.RETRYING);
    expect(failed).toMatchObject({ attempts: 1, last_error: 'RangeError: out of range' });
    expect(failed.errors[0]).toMatchObject({
      kind: 'failed',
      worker: 'loop-1',
      stack: expect.stringContaining('RangeError: out of range'),
    });
    // An error name past the server's limit is cut to it, not refused: the attempt fails now, not at lease expiry.
    const longName = await reach(ids.longName, JobStatus.RETRYING);
    expect(longName).toMatchObject({ attempts: 1, last_error: `${'N'.repeat(200)}: odd class` });

    abort.abort();
    await worker.done;
    expect(worker.running).toBe(0);
  });

  it('stop(): claims no more, lets the running handler finish, and resolves once its outcome is written', async () => {
    const queue = 'loop-stop';
    const held = gate();
    const first = await enqueue(queue);
    const worker = start(
      queue,
      async () => {
        await held.promise;
        return 'finished';
      },
      { client, idleBackoff: { minMs: 10, maxMs: 50 } },
    );
    await reach(first, JobStatus.RUNNING);
    const stopped = worker.stop();
    const second = await enqueue(queue);
    held.open();
    await stopped;
    expect(await row(first)).toMatchObject({ status: 'COMPLETED', result: 'finished' });
    expect(await row(second)).toMatchObject({ status: 'PENDING', attempts: 0 });
    await t.jobs.cancel(second);
  });

  it('hands the job back when the handler outlasts the shutdown grace period (the attempt refunded)', async () => {
    const queue = 'loop-grace';
    const id = await enqueue(queue);
    let reason: unknown;
    const worker = start(
      queue,
      (_job, ctx) => {
        ctx.signal.addEventListener('abort', () => (reason = ctx.signal.reason));
        return new Promise(() => undefined); // ignores its signal and never settles
      },
      { client, shutdownGraceMs: 100, idleBackoff: { minMs: 10, maxMs: 50 } },
    );
    await reach(id, JobStatus.RUNNING);
    await worker.stop();
    expect(reason).toBeInstanceOf(WorkerStoppedError);
    // Handed back, not snoozed: ready at once by the server's clock, no snooze counted.
    const handedBack = await row(id);
    expect(handedBack).toMatchObject({ status: 'PENDING', attempts: 0, snoozes: 0, lease_token: null });
    expect(handedBack.errors).toEqual([expect.objectContaining({ kind: 'handed-back' })]);
    await t.jobs.cancel(id);
  });

  it('aborts the handler and reports nothing when a heartbeat finds the claim gone', async () => {
    const queue = 'loop-lost';
    const id = await enqueue(queue);
    let reason: unknown;
    const aborted = gate();
    const worker = start(
      queue,
      async (_job, ctx) => {
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        reason = ctx.signal.reason;
        aborted.open();
        return 'too late';
      },
      { client, leaseMs: 1_500, heartbeatIntervalMs: 100, idleBackoff: { minMs: 10, maxMs: 50 }, onError: () => undefined },
    );
    await reach(id, JobStatus.RUNNING);
    // As if the lease had expired and another worker had claimed the job: a token this worker does not hold.
    const foreign = randomUUID();
    await t.sql.query(
      `UPDATE ${t.jobsTable} SET lease_token = $2, locked_by = 'someone-else', locked_until = now() + interval '1 hour' WHERE id = $1`,
      [id, foreign],
    );
    await aborted.promise;
    expect(reason).toBeInstanceOf(LeaseLostError);
    await worker.stop();
    expect(await row(id)).toMatchObject({ status: 'RUNNING', lease_token: foreign, locked_by: 'someone-else', result: null });
  });

  it.each([
    ['larger than the server takes in a request (413)', () => 'x'.repeat(2 * 1024 * 1024), /413|too large|limit/i],
    ['holding a NUL character PostgreSQL cannot store (400)', () => ({ note: 'a\u0000b' }), /result\.note/],
  ])(
    "a result %s ends the job DEAD with the server's reason at once, neither waiting out the lease nor running it again",
    async (_, result, reason) => {
      const queue = `loop-refused-${randomUUID().slice(0, 8)}`;
      const id = (await t.jobs.enqueue(TYPE, {}, { queue, maxAttempts: 3 })).id;
      const startedAt = Date.now();
      const errors: unknown[] = [];
      start(queue, () => result(), {
        client,
        workerId: 'loop-refused',
        leaseMs: 60_000,
        idleBackoff: { minMs: 10, maxMs: 50 },
        onError: (err) => errors.push(err),
      });
      const dead = await reach(id, JobStatus.DEAD);
      expect(Date.now() - startedAt).toBeLessThan(10_000);
      expect(dead.result).toBeNull();
      expect(dead.attempts).toBe(1);
      expect(dead.errors).toEqual([expect.objectContaining({ kind: 'permanent', worker: 'loop-refused' })]);
      expect(dead.last_error).toMatch(reason);
      expect(errors).toEqual([expect.objectContaining({ message: expect.stringMatching(reason) })]);
    },
  );
});
