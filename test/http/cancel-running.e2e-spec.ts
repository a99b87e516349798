import { Injectable } from '@nestjs/common';
import { ConveyorClient, JobCancelledError as ClientJobCancelledError, runWorker, WorkerHandle } from '@conveyor/client';
import { Job, JobCancelledError, JobContext, JobHandler, JobHandlerHost, JobStatus } from '@conveyor/core';
import { WorkerPool } from '@conveyor/core/consumer/worker-pool.service';
import { CONVEYOR_OPTIONS } from '@conveyor/core/config/conveyor.constants';
import { ConveyorOptions } from '@conveyor/core/config/conveyor-options.interface';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';
import { createTestApp, TestApp } from '../support/test-app';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

const EXTERNAL = 'EXT_CANCEL';

/** What the test sees of each attempt of SIGNAL_WATCH: the reason its signal fired with, and a gate it waits on. */
@Injectable()
class SignalWatch {
  readonly started = new Set<string>();
  readonly reasons = new Map<string, unknown>();
  private readonly gates = new Map<string, () => void>();
  private readonly waits = new Map<string, Promise<void>>();

  gate(id: string): Promise<void> {
    if (!this.waits.has(id)) this.waits.set(id, new Promise((resolve) => this.gates.set(id, resolve)));
    return this.waits.get(id)!;
  }

  release(id: string): void {
    void this.gate(id);
    this.gates.get(id)!();
  }

  releaseAll(): void {
    for (const open of this.gates.values()) open();
  }
}

/** Waits for its gate whatever its signal says (a handler that ignores cancellation), then returns a result. */
@JobHandler('SIGNAL_WATCH', { maxAttempts: 3 })
class SignalWatchHandler extends JobHandlerHost<Record<string, unknown>> {
  constructor(private readonly watch: SignalWatch) {
    super();
  }

  async handle(job: Job, ctx: JobContext): Promise<unknown> {
    this.watch.started.add(job.id);
    ctx.signal.addEventListener('abort', () => this.watch.reasons.set(job.id, ctx.signal.reason), { once: true });
    await this.watch.gate(job.id);
    return { finished: true };
  }
}

/** Cancelling RUNNING jobs: in this process, on an HTTP worker, on another instance; and its race with the outcome. */
describe('Cancelling a RUNNING job', () => {
  let t: RestTestApp;
  let watch: SignalWatch;

  const submit = async (body: Record<string, unknown>) => (await t.api().post('/jobs').send(body).expect(201)).body as Job;
  const reach = (id: string, status: JobStatus, timeoutMs = 10_000) =>
    waitFor(async () => ((await t.statusOf(id)) === status ? t.row(id) : null), { timeoutMs, message: `job ${id} to be ${status}` });
  const poolIdle = () => {
    const pool = t.app.get(WorkerPool);
    return waitFor(() => pool.stats().running + pool.stats().finishing + pool.stats().buffered === 0 || null, { message: 'an idle pool' });
  };

  beforeAll(async () => {
    t = await createRestTestApp('http_cancel_running', {
      providers: [SignalWatch, SignalWatchHandler],
      // Heartbeats rare and leases long: a signal that fires within seconds was fired by the cancel notice.
      engine: { heartbeatIntervalMs: 20_000, leaseMs: 60_000, externalTypes: [EXTERNAL], concurrency: 32 },
    });
    watch = t.app.get(SignalWatch);
  });

  afterAll(async () => {
    watch?.releaseAll();
    await t?.close();
  });

  it("in this process: 200, the handler's signal fires with JobCancelledError, the job ends CANCELLED and its later result is not stored", async () => {
    const job = await submit({ type: 'SIGNAL_WATCH', payload: {} });
    await waitFor(() => watch.started.has(job.id) || null);

    const res = await t.api().post(`/jobs/${job.id}/cancel`).expect(200);
    expect(res.body).toMatchObject({ id: job.id, status: JobStatus.CANCELLED });
    const reason = await waitFor(() => watch.reasons.get(job.id), { timeoutMs: 5000, message: 'the signal to fire' });
    expect(reason).toBeInstanceOf(JobCancelledError);
    expect((reason as JobCancelledError).jobId).toBe(job.id);

    watch.release(job.id); // the handler ignores its signal and returns a result anyway
    await poolIdle();
    const row = await t.row(job.id);
    expect(row).toMatchObject({ status: 'CANCELLED', result: null, attempts: 1, lease_token: null, locked_by: null, locked_until: null });
    expect(row!.finished_at).toBeInstanceOf(Date);
    // Not retried: the pool holds nothing and the row is finished.
    expect(t.app.get(WorkerPool).heldLeases()).toEqual([]);
  });

  it('cancel racing the outcome write: exactly one wins, and the answer agrees with the database', async () => {
    const jobs = await Promise.all(Array.from({ length: 20 }, () => submit({ type: 'SIGNAL_WATCH', payload: {} })));
    await waitFor(() => jobs.every((j) => watch.started.has(j.id)) || null, { message: 'every job to start' });
    const answers = await Promise.all(
      jobs.map(async (j) => {
        watch.release(j.id);
        return (await t.api().post(`/jobs/${j.id}/cancel`)).status;
      }),
    );
    await poolIdle();
    for (const [i, j] of jobs.entries()) {
      const row = await t.row(j.id);
      if (answers[i] === 200) expect(row).toMatchObject({ status: 'CANCELLED', result: null });
      else expect([answers[i], row!.status, row!.result]).toEqual([409, 'COMPLETED', { finished: true }]);
    }
  });

  it('409 naming the status for a finished job', async () => {
    const job = await submit({ type: 'TEST_RECORD', payload: {} });
    await reach(job.id, JobStatus.COMPLETED);
    const res = await t.api().post(`/jobs/${job.id}/cancel`);
    expectErrorBody(res, 409);
    expect(res.body.jobStatus).toBe('COMPLETED');
  });

  describe('on an HTTP worker', () => {
    let worker: WorkerHandle | undefined;
    afterEach(async () => worker?.stop());

    it("the heartbeat answers 409 with jobStatus CANCELLED, complete is refused with 409, and the worker's signal fires", async () => {
      const client = new ConveyorClient({ baseUrl: t.baseUrl });
      const job = (await t.jobs.enqueue(EXTERNAL, { n: 1 }, { queue: 'ext-cancel' })) as Job;
      const claimed = await client.claim('ext-cancel', { workerId: 'manual', max: 1 });
      expect(claimed.map((j) => j.id)).toEqual([job.id]);
      const token = claimed[0].leaseToken;

      await t.api().post(`/jobs/${job.id}/cancel`).expect(200);
      const beat = await t.api().post(`/jobs/${job.id}/heartbeat`).send({ leaseToken: token });
      expectErrorBody(beat, 409);
      expect(beat.body.jobStatus).toBe('CANCELLED');
      expect(beat.body.message).toContain('cancelled');
      const complete = await t
        .api()
        .post(`/jobs/${job.id}/complete`)
        .send({ leaseToken: token, result: { late: true } });
      expectErrorBody(complete, 409);
      expect(complete.body).toMatchObject({ jobStatus: 'CANCELLED', message: expect.stringContaining('cancelled') });
      const fail = await t.api().post(`/jobs/${job.id}/fail`).send({ leaseToken: token, error: 'late' });
      expectErrorBody(fail, 409);
      expect(await t.row(job.id)).toMatchObject({ status: 'CANCELLED', result: null, errors: [] });
    });

    it("runWorker: the handler's signal fires with JobCancelledError and nothing is reported", async () => {
      const job = (await t.jobs.enqueue(EXTERNAL, { n: 2 }, { queue: 'ext-cancel-loop' })) as Job;
      let reason: unknown;
      let started = false;
      worker = runWorker(
        'ext-cancel-loop',
        async (_job, ctx) => {
          started = true;
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
          reason = ctx.signal.reason;
          return { late: true };
        },
        { baseUrl: t.baseUrl, workerId: 'loop', heartbeatIntervalMs: 100, idleBackoff: { minMs: 20, maxMs: 100 } },
      );
      await waitFor(() => started || null);
      await t.api().post(`/jobs/${job.id}/cancel`).expect(200);
      await waitFor(() => reason, { timeoutMs: 5000, message: "the worker's signal to fire" });
      expect(reason).toBeInstanceOf(ClientJobCancelledError);
      await worker.stop();
      expect(await t.row(job.id)).toMatchObject({ status: 'CANCELLED', result: null, errors: [] });
    });
  });

  describe('owned by another instance', () => {
    // The control app serves the API and runs no workers; the job runs on the other app or process.
    let control: RestTestApp;
    let other: TestApp | undefined;
    let worker: SpawnedWorker | undefined;

    beforeAll(async () => {
      control = await createRestTestApp('http_cancel_elsewhere', {
        providers: [SignalWatch, SignalWatchHandler],
        engine: { runWorkers: false },
      });
    });

    afterAll(async () => {
      other?.app.get(SignalWatch).releaseAll();
      await other?.close();
      if (worker) {
        worker.proc.kill('SIGTERM');
        await worker.exited;
      }
      await control?.close();
    });

    it("another app on the same schema: the owner's handler signal fires and the job ends CANCELLED, not retried", async () => {
      other = await createTestApp({
        schema: control.schema.schema,
        http: false,
        providers: [SignalWatch, SignalWatchHandler],
        engine: { heartbeatIntervalMs: 20_000, leaseMs: 60_000 },
      });
      const otherWatch = other.app.get(SignalWatch);
      const job = (await control.api().post('/jobs').send({ type: 'SIGNAL_WATCH', payload: {} }).expect(201)).body as Job;
      await waitFor(() => otherWatch.started.has(job.id) || null, { message: 'the other app to start the job' });
      expect((await control.row(job.id))!.locked_by).toBe(other.app.get<ConveyorOptions>(CONVEYOR_OPTIONS).workerId);

      await control.api().post(`/jobs/${job.id}/cancel`).expect(200);
      const reason = await waitFor(() => otherWatch.reasons.get(job.id), { timeoutMs: 5000, message: "the other app's signal to fire" });
      expect(reason).toBeInstanceOf(JobCancelledError);
      otherWatch.release(job.id);
      const pool = other.app.get(WorkerPool);
      await waitFor(() => pool.stats().running + pool.stats().finishing === 0 || null);
      expect(await control.row(job.id)).toMatchObject({ status: 'CANCELLED', result: null, attempts: 1 });
      await other.close();
      other = undefined;
    });

    it('another OS process: its handler is aborted (its only slot frees at once) and the job ends CANCELLED, not retried', async () => {
      worker = spawnWorker({
        url: process.env.CONVEYOR_TEST_DATABASE_URL!,
        schema: control.schema.schema,
        engine: { concurrency: 1, prefetch: 0, heartbeatIntervalMs: 20_000, leaseMs: 60_000, pollIntervalMs: 50 },
      });
      await worker.ready;
      const submit = async (payload: Record<string, unknown>) =>
        (await control.api().post('/jobs').send({ type: 'TEST_RECORD', payload }).expect(201)).body as Job;
      const long = await submit({ sleepMs: 60_000 });
      await waitFor(
        async () => ((await control.row(long.id))?.status === 'RUNNING' && (await control.invocations(long.id)) === 1) || null,
        {
          message: 'the process to run the long job',
        },
      );

      await control.api().post(`/jobs/${long.id}/cancel`).expect(200);
      // The process has one slot: a job submitted after the cancel runs only once the long one's handler was aborted
      // (its lease, 60 s, and heartbeat, 20 s, are far off: only the cancel notice can have done it).
      const next = await submit({});
      await waitFor(async () => (await control.statusOf(next.id)) === JobStatus.COMPLETED || null, { message: 'the next job to complete' });
      expect(await control.row(long.id)).toMatchObject({ status: 'CANCELLED', result: null, attempts: 1 });
      expect(await control.invocations(long.id)).toBe(1);
    });
  });
});
