import { Job, JobStatus } from '@conveyor/core';
import { WorkerPool } from '@conveyor/core/consumer/worker-pool.service';
import { waitFor } from '../support/wait-for';
import { ControlledHandler, HandlerControls } from './support/controlled.handler';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/** `POST /jobs/:id/cancel` and `POST /jobs/:id/retry` on a worker-enabled app. */
describe('POST /jobs/:id/cancel and /retry', () => {
  let t: RestTestApp;
  let controls: HandlerControls;
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

  const submit = async (body: Record<string, unknown>) => (await t.api().post('/jobs').send(body).expect(201)).body as Job;
  const controlled = (name: string, extra: Record<string, unknown> = {}) =>
    submit({ type: 'TEST_CONTROLLED', payload: { name }, ...extra });
  const reach = (id: string, status: JobStatus, timeoutMs = 10_000) =>
    waitFor(async () => ((await t.statusOf(id)) === status ? t.row(id) : null), { timeoutMs, message: `job ${id} to be ${status}` });

  beforeAll(async () => {
    t = await createRestTestApp('http_cancel_retry', { providers: [HandlerControls, ControlledHandler] });
    controls = t.app.get(HandlerControls);
  });

  afterAll(async () => {
    controls?.releaseAll();
    await t?.close();
  });

  describe('cancel', () => {
    it('SCHEDULED → CANCELLED (200), and it never runs', async () => {
      const job = await submit({ type: 'TEST_RECORD', payload: {}, runAt: inAnHour() });
      expect(job.status).toBe(JobStatus.SCHEDULED);
      const res = await t.api().post(`/jobs/${job.id}/cancel`).expect(200);
      expect(res.body).toMatchObject({ id: job.id, status: JobStatus.CANCELLED });
      expect(res.body.finishedAt).not.toBeNull();
      const row = await t.row(job.id);
      expect(row).toMatchObject({ status: 'CANCELLED', attempts: 0 });
      expect(row!.finished_at).toBeInstanceOf(Date);
      expect(await t.invocations(job.id)).toBe(0);
    });

    it('PENDING → CANCELLED (200), and it is not run once its queue resumes', async () => {
      await t.api().post('/queues/cancel-pending/pause').expect(200);
      const job = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'cancel-pending' });
      expect(await t.statusOf(job.id)).toBe(JobStatus.PENDING);
      expect((await t.api().post(`/jobs/${job.id}/cancel`).expect(200)).body.status).toBe(JobStatus.CANCELLED);
      await t.api().post('/queues/cancel-pending/resume').expect(200);
      // A job submitted after it in the same queue completes; by then the cancelled one would have run.
      const later = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'cancel-pending' });
      await reach(later.id, JobStatus.COMPLETED);
      expect(await t.statusOf(job.id)).toBe(JobStatus.CANCELLED);
      expect(await t.invocations(job.id)).toBe(0);
    });

    it('RETRYING → CANCELLED (200)', async () => {
      // The recording handler asks to run again in an hour: RETRYING with a far run_at.
      const job = await submit({ type: 'TEST_RECORD', payload: { snoozeMs: 3_600_000 } });
      await reach(job.id, JobStatus.RETRYING);
      expect((await t.api().post(`/jobs/${job.id}/cancel`).expect(200)).body.status).toBe(JobStatus.CANCELLED);
      expect(await t.row(job.id)).toMatchObject({ status: 'CANCELLED', locked_by: null });
    });

    it('RUNNING → CANCELLED (200): the outcome its handler returns later is not stored (see cancel-running.e2e-spec)', async () => {
      controls.hold('running-1');
      const job = await controlled('running-1');
      await reach(job.id, JobStatus.RUNNING);
      const res = await t.api().post(`/jobs/${job.id}/cancel`).expect(200);
      expect(res.body).toMatchObject({ id: job.id, status: JobStatus.CANCELLED });
      controls.release('running-1');
      await waitFor(() => t.app.get(WorkerPool).stats().running + t.app.get(WorkerPool).stats().finishing === 0 || null);
      expect(await t.row(job.id)).toMatchObject({ status: 'CANCELLED', result: null, lease_token: null, locked_by: null });
    });

    it('409 for COMPLETED, DEAD and CANCELLED jobs, which stay as they were', async () => {
      const completed = await submit({ type: 'TEST_RECORD', payload: {} });
      await reach(completed.id, JobStatus.COMPLETED);
      controls.failing.add('dead-1');
      const dead = await controlled('dead-1');
      await reach(dead.id, JobStatus.DEAD);
      const cancelled = await submit({ type: 'TEST_RECORD', payload: {}, runAt: inAnHour() });
      await t.api().post(`/jobs/${cancelled.id}/cancel`).expect(200);

      for (const [id, status] of [
        [completed.id, 'COMPLETED'],
        [dead.id, 'DEAD'],
        [cancelled.id, 'CANCELLED'],
      ]) {
        const before = await t.row(id);
        const res = await t.api().post(`/jobs/${id}/cancel`);
        expectErrorBody(res, 409);
        expect(res.body.message).toContain(status);
        expect(await t.row(id)).toEqual(before);
      }
    });

    it('404 for an unknown job, 400 naming id for a malformed one', async () => {
      expectErrorBody(await t.api().post('/jobs/6f1c1d9e-0000-4000-8000-000000000000/cancel'), 404);
      expectErrorBody(await t.api().post('/jobs/42/cancel'), 400, ['id']);
    });
  });

  describe('retry', () => {
    it('DEAD → PENDING with a fresh attempt budget, then runs to COMPLETED keeping its error history', async () => {
      controls.failing.add('flaky-1');
      const job = await controlled('flaky-1', { queue: 'retry-dead' });
      const dead = await reach(job.id, JobStatus.DEAD);
      expect(dead).toMatchObject({ attempts: 1, max_attempts: 1, last_error: 'Error: flaky-1: downstream is down' });

      // Paused, so the PENDING state can be read before a worker takes the job.
      await t.api().post('/queues/retry-dead/pause').expect(200);
      controls.failing.delete('flaky-1');
      const res = await t.api().post(`/jobs/${job.id}/retry`).expect(200);
      expect(res.body).toMatchObject({ id: job.id, status: JobStatus.PENDING, attempts: 0, maxAttempts: 1, finishedAt: null });
      const pending = await t.row(job.id);
      expect(pending).toMatchObject({ status: 'PENDING', attempts: 0, finished_at: null, started_at: null });
      const { rows } = await t.sql.query(`SELECT run_at <= now() AS due FROM ${t.jobsTable} WHERE id = $1`, [job.id]);
      expect(rows[0].due).toBe(true);

      await t.api().post('/queues/retry-dead/resume').expect(200);
      const done = await reach(job.id, JobStatus.COMPLETED);
      expect(done).toMatchObject({ attempts: 1, result: { done: 'flaky-1' } });
      expect(done!.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'failed' })]);
    });

    it('CANCELLED → PENDING, then runs to COMPLETED', async () => {
      const job = await submit({ type: 'TEST_RECORD', payload: { result: 'second chance' }, runAt: inAnHour() });
      await t.api().post(`/jobs/${job.id}/cancel`).expect(200);
      const res = await t.api().post(`/jobs/${job.id}/retry`).expect(200);
      expect(res.body).toMatchObject({ status: JobStatus.PENDING, attempts: 0 });
      expect(new Date(res.body.runAt).getTime()).toBeLessThan(new Date(job.runAt).getTime());
      expect(await reach(job.id, JobStatus.COMPLETED)).toMatchObject({ attempts: 1, result: 'second chance' });
      expect(await t.invocations(job.id)).toBe(1);
    });

    it('409 for PENDING, SCHEDULED, RUNNING and COMPLETED jobs, which stay as they were', async () => {
      await t.api().post('/queues/retry-409/pause').expect(200);
      const pending = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'retry-409' });
      const scheduled = await submit({ type: 'TEST_RECORD', payload: {}, runAt: inAnHour() });
      controls.hold('running-2');
      const running = await controlled('running-2');
      await reach(running.id, JobStatus.RUNNING);
      const completed = await submit({ type: 'TEST_RECORD', payload: {} });
      await reach(completed.id, JobStatus.COMPLETED);

      for (const [id, status] of [
        [pending.id, 'PENDING'],
        [scheduled.id, 'SCHEDULED'],
        [running.id, 'RUNNING'],
        [completed.id, 'COMPLETED'],
      ]) {
        const before = await t.row(id);
        const res = await t.api().post(`/jobs/${id}/retry`);
        expectErrorBody(res, 409);
        expect(res.body.message).toContain(status);
        const after = await t.row(id);
        // The running job's worker may renew its lease meanwhile: locked_until moves on, and nothing else.
        expect({ ...after, locked_until: null }).toEqual({ ...before, locked_until: null });
        expect(Number(after!.locked_until)).toBeGreaterThanOrEqual(Number(before!.locked_until));
      }
      controls.release('running-2');
      await reach(running.id, JobStatus.COMPLETED);
      await t.api().post('/queues/retry-409/resume').expect(200);
    });

    it('404 for an unknown job, 400 naming id for a malformed one', async () => {
      expectErrorBody(await t.api().post('/jobs/6f1c1d9e-0000-4000-8000-000000000000/retry'), 404);
      expectErrorBody(await t.api().post('/jobs/zzz/retry'), 400, ['id']);
    });

    it('409 for a job whose type no handler knows any more, by every retry route; it stays as it was', async () => {
      // Jobs of a type whose handler a later release removed: a submission of that type is a 400 now.
      const { rows } = await t.sql.query<{ id: string; status: string }>(
        `INSERT INTO ${t.jobsTable} (type, queue, status, attempts, finished_at)
         VALUES ('RETIRED_TYPE', 'retired', 'DEAD', 3, now()), ('RETIRED_TYPE', 'retired', 'CANCELLED', 0, now())
         RETURNING id, status`,
      );
      const [dead, cancelled] = rows;

      const res = await t.api().post(`/jobs/${dead.id}/retry`);
      expectErrorBody(res, 409);
      expect(res.body).toMatchObject({ jobStatus: 'DEAD', message: expect.stringContaining('"RETIRED_TYPE"') });

      const bulk = await t
        .api()
        .post('/jobs/bulk/retry')
        .send({ ids: [dead.id, cancelled.id] })
        .expect(200);
      expect(bulk.body).toMatchObject({ succeeded: 0, failed: 2 });
      expect(bulk.body.results).toEqual([
        expect.objectContaining({ id: dead.id, ok: false, status: 'DEAD', statusCode: 409 }),
        expect.objectContaining({ id: cancelled.id, ok: false, status: 'CANCELLED', statusCode: 409 }),
      ]);

      for (const status of ['DEAD', 'CANCELLED']) {
        const filtered = await t.api().post('/jobs/retry').send({ queue: 'retired', status }).expect(200);
        expect(filtered.body).toEqual({ retried: 0, ids: [] });
      }

      expect(await t.row(dead.id)).toMatchObject({ status: 'DEAD', attempts: 3 });
      expect(await t.row(cancelled.id)).toMatchObject({ status: 'CANCELLED' });
    });
  });
});
