import { randomUUID } from 'node:crypto';
import { ConveyorClient } from '@conveyor/client';
import { Job, JobStatus } from '@conveyor/core';
import { MAX_BULK_IDS } from '@conveyor/core/http/dto/bulk-action.dto';
import { waitFor } from '../support/wait-for';
import { ControlledHandler, HandlerControls } from './support/controlled.handler';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/** Bulk cancel, retry and delete of chosen jobs, retry-all for CANCELLED jobs, and run-now. */
describe('Operator actions', () => {
  let t: RestTestApp;
  let controls: HandlerControls;
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

  const submit = async (body: Record<string, unknown>) => (await t.api().post('/jobs').send(body).expect(201)).body as Job;
  const reach = (id: string, status: JobStatus) =>
    waitFor(async () => ((await t.statusOf(id)) === status ? t.row(id) : null), { message: `job ${id} to be ${status}` });
  const completed = async () => {
    const job = await submit({ type: 'TEST_RECORD', payload: {} });
    await reach(job.id, JobStatus.COMPLETED);
    return job;
  };
  const dead = async (name: string) => {
    controls.failing.add(name);
    const job = await submit({ type: 'TEST_CONTROLLED', payload: { name } });
    await reach(job.id, JobStatus.DEAD);
    return job;
  };

  beforeAll(async () => {
    t = await createRestTestApp('http_operator_actions', { providers: [HandlerControls, ControlledHandler] });
    controls = t.app.get(HandlerControls);
  });

  afterAll(async () => {
    controls?.releaseAll();
    await t?.close();
  });

  describe('POST /jobs/bulk/{cancel,retry,delete}', () => {
    it('cancel: waiting and running jobs are cancelled; finished and missing ones are reported, and block nothing', async () => {
      const scheduled = await submit({ type: 'TEST_RECORD', payload: {}, runAt: inAnHour() });
      controls.hold('bulk-running');
      const running = await submit({ type: 'TEST_CONTROLLED', payload: { name: 'bulk-running' } });
      await reach(running.id, JobStatus.RUNNING);
      const done = await completed();
      const missing = randomUUID();

      const res = await t
        .api()
        .post('/jobs/bulk/cancel')
        .send({ ids: [done.id, scheduled.id, missing, running.id, scheduled.id] })
        .expect(200);
      expect(res.body).toEqual({
        action: 'cancel',
        succeeded: 2,
        failed: 2,
        results: [
          { id: done.id, ok: false, status: 'COMPLETED', statusCode: 409, message: expect.stringContaining('COMPLETED') },
          { id: scheduled.id, ok: true, status: 'CANCELLED' },
          { id: missing, ok: false, status: null, statusCode: 404, message: expect.stringContaining(missing) },
          { id: running.id, ok: true, status: 'CANCELLED' },
        ],
      });
      expect(await t.statusOf(scheduled.id)).toBe('CANCELLED');
      expect(await t.statusOf(running.id)).toBe('CANCELLED');
      expect(await t.row(done.id)).toMatchObject({ status: 'COMPLETED' });
      controls.release('bulk-running');
    });

    it('cancel: a full request of waiting jobs is cancelled in one transaction, each job changed once', async () => {
      const jobs = (
        await t
          .api()
          .post('/jobs/batch')
          .send({ jobs: Array.from({ length: MAX_BULK_IDS }, (_, i) => ({ type: 'TEST_RECORD', payload: { i }, runAt: inAnHour() })) })
          .expect(201)
      ).body.jobs as Job[];
      const ids = jobs.map((j) => j.id);

      const res = await t.api().post('/jobs/bulk/cancel').send({ ids }).expect(200);
      expect(res.body).toMatchObject({ succeeded: MAX_BULK_IDS, failed: 0 });
      expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(ids);
      // One commit for all of them, not one per job: every row's new version was written by the same transaction.
      const { rows } = await t.sql.query<{ status: string; version: number; writers: number; n: number }>(
        `SELECT status, version, count(DISTINCT xmin::text)::int AS writers, count(*)::int AS n
         FROM ${t.jobsTable} WHERE id = ANY($1::uuid[]) GROUP BY status, version`,
        [ids],
      );
      expect(rows).toEqual([{ status: 'CANCELLED', version: 2, writers: 1, n: MAX_BULK_IDS }]);
    });

    /** A full request of jobs of a paused queue (so nothing claims them), set to `status` by one transaction of the test's. */
    const fullRequest = async (queue: string, status: JobStatus) => {
      await t.api().post(`/queues/${queue}/pause`).expect(200);
      const jobs = (
        await t
          .api()
          .post('/jobs/batch')
          .send({ jobs: Array.from({ length: MAX_BULK_IDS }, (_, i) => ({ type: 'TEST_RECORD', payload: { i }, queue })) })
          .expect(201)
      ).body.jobs as Job[];
      const ids = jobs.map((j) => j.id);
      await t.sql.query(`UPDATE ${t.jobsTable} SET status = $2, finished_at = now() WHERE id = ANY($1::uuid[])`, [ids, status]);
      return ids;
    };

    it('retry: a full request of DEAD jobs is retried in one transaction, each job changed once', async () => {
      const ids = await fullRequest('bulk-retry-one-commit', JobStatus.DEAD);

      const res = await t.api().post('/jobs/bulk/retry').send({ ids }).expect(200);
      expect(res.body).toMatchObject({ succeeded: MAX_BULK_IDS, failed: 0 });
      expect(res.body.results.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual(ids.map((id) => [id, 'PENDING']));
      // As for the cancel: every row's new version was written by the same transaction.
      const { rows } = await t.sql.query<{ status: string; version: number; attempts: number; writers: number; n: number }>(
        `SELECT status, version, attempts, count(DISTINCT xmin::text)::int AS writers, count(*)::int AS n
         FROM ${t.jobsTable} WHERE id = ANY($1::uuid[]) GROUP BY status, version, attempts`,
        [ids],
      );
      expect(rows).toEqual([{ status: 'PENDING', version: 2, attempts: 0, writers: 1, n: MAX_BULK_IDS }]);
    });

    it('delete: a full request of finished jobs is deleted in one transaction', async () => {
      const ids = await fullRequest('bulk-delete-one-commit', JobStatus.COMPLETED);
      // A deleted row keeps no xmin to read: a trigger of the test's notes which transaction deleted each.
      const deletedBy = `${t.jobsTable}_deleted_by`;
      await t.sql.query(`
        CREATE TABLE ${deletedBy} (id uuid, xid bigint);
        CREATE FUNCTION ${deletedBy}_note() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN INSERT INTO ${deletedBy} VALUES (OLD.id, txid_current()); RETURN OLD; END $$;
        CREATE TRIGGER note_deleting_transaction AFTER DELETE ON ${t.jobsTable} FOR EACH ROW EXECUTE FUNCTION ${deletedBy}_note();`);
      try {
        const res = await t.api().post('/jobs/bulk/delete').send({ ids }).expect(200);
        expect(res.body).toMatchObject({ succeeded: MAX_BULK_IDS, failed: 0 });
        expect(res.body.results.map((r: { id: string; status: null }) => [r.id, r.status])).toEqual(ids.map((id) => [id, null]));
        expect(await t.rows('id = ANY($1::uuid[])', [ids])).toEqual([]);
        const { rows } = await t.sql.query(
          `SELECT count(DISTINCT xid)::int AS writers, count(*)::int AS n FROM ${deletedBy} WHERE id = ANY($1::uuid[])`,
          [ids],
        );
        expect(rows).toEqual([{ writers: 1, n: MAX_BULK_IDS }]);
      } finally {
        await t.sql.query(`DROP TRIGGER note_deleting_transaction ON ${t.jobsTable}`);
      }
    });

    it('retry: DEAD and CANCELLED jobs go back to PENDING and run; others are refused one by one', async () => {
      const deadJob = await dead('bulk-dead');
      controls.failing.delete('bulk-dead');
      const cancelled = await submit({ type: 'TEST_RECORD', payload: {}, runAt: inAnHour() });
      await t.api().post(`/jobs/${cancelled.id}/cancel`).expect(200);
      const done = await completed();

      const res = await t
        .api()
        .post('/jobs/bulk/retry')
        .send({ ids: [deadJob.id, done.id, cancelled.id] })
        .expect(200);
      expect(res.body.succeeded).toBe(2);
      expect(res.body.results).toEqual([
        { id: deadJob.id, ok: true, status: 'PENDING' },
        { id: done.id, ok: false, status: 'COMPLETED', statusCode: 409, message: expect.stringContaining('DEAD or CANCELLED') },
        { id: cancelled.id, ok: true, status: 'PENDING' },
      ]);
      await reach(deadJob.id, JobStatus.COMPLETED);
      await reach(cancelled.id, JobStatus.COMPLETED);
      expect(await t.row(done.id)).toMatchObject({ status: 'COMPLETED', attempts: 1 });
    });

    it('delete: finished jobs are deleted; a waiting one is refused and kept', async () => {
      const done = await completed();
      const deadJob = await dead('bulk-delete-dead');
      const waiting = await submit({ type: 'TEST_RECORD', payload: {}, runAt: inAnHour() });

      const res = await t
        .api()
        .post('/jobs/bulk/delete')
        .send({ ids: [done.id, waiting.id, deadJob.id] })
        .expect(200);
      expect(res.body).toMatchObject({ action: 'delete', succeeded: 2, failed: 1 });
      expect(res.body.results[1]).toEqual({ id: waiting.id, ok: false, status: 'SCHEDULED', statusCode: 409, message: expect.any(String) });
      expect(await t.row(done.id)).toBeUndefined();
      expect(await t.row(deadJob.id)).toBeUndefined();
      expect(await t.statusOf(waiting.id)).toBe('SCHEDULED');
    });

    it('the client: bulk and run-now', async () => {
      const client = new ConveyorClient({ baseUrl: t.baseUrl });
      const waiting = await submit({ type: 'TEST_RECORD', payload: {}, runAt: inAnHour() });
      const missing = randomUUID();
      const res = await client.bulk('cancel', [waiting.id, missing]);
      expect(res.results.map((r) => [r.ok, r.status, r.statusCode])).toEqual([
        [true, 'CANCELLED', undefined],
        [false, null, 404],
      ]);
      const later = await submit({ type: 'TEST_RECORD', payload: {}, runAt: inAnHour() });
      expect((await client.runNow(later.id)).id).toBe(later.id);
      await reach(later.id, JobStatus.COMPLETED);
    });

    it('400 naming `ids` for a missing, empty, oversized or malformed list', async () => {
      for (const body of [{}, { ids: [] }, { ids: ['nope'] }, { ids: Array.from({ length: MAX_BULK_IDS + 1 }, () => randomUUID()) }]) {
        const res = await t.api().post('/jobs/bulk/cancel').send(body);
        expect(expectErrorBody(res, 400)).toContain('ids');
      }
      expect(
        (
          await t
            .api()
            .post('/jobs/bulk/archive')
            .send({ ids: [randomUUID()] })
        ).status,
      ).toBe(404);
    });
  });

  describe('POST /jobs/retry for CANCELLED jobs', () => {
    it('retries every CANCELLED job matching the filter, and leaves DEAD ones', async () => {
      const queue = 'retry-all-cancelled';
      const cancelled = await Promise.all([1, 2, 3].map(() => submit({ type: 'TEST_RECORD', payload: {}, queue, runAt: inAnHour() })));
      for (const j of cancelled) await t.api().post(`/jobs/${j.id}/cancel`).expect(200);
      const deadJob = await dead('retry-all-dead');
      await t.sql.query(`UPDATE ${t.jobsTable} SET queue = $1 WHERE id = $2`, [queue, deadJob.id]);

      const res = await t.api().post('/jobs/retry').send({ status: 'CANCELLED', queue }).expect(200);
      expect(res.body.retried).toBe(3);
      expect([...res.body.ids].sort()).toEqual(cancelled.map((j) => j.id).sort());
      for (const j of cancelled) await reach(j.id, JobStatus.COMPLETED);
      expect(await t.statusOf(deadJob.id)).toBe('DEAD');
    });
  });

  describe('POST /jobs/:id/run-now', () => {
    it('a SCHEDULED job is claimed promptly, and so is a RETRYING one', async () => {
      const scheduled = await submit({ type: 'TEST_RECORD', payload: {}, runAt: inAnHour() });
      const res = await t.api().post(`/jobs/${scheduled.id}/run-now`).expect(200);
      expect(res.body).toMatchObject({ id: scheduled.id, status: 'SCHEDULED' });
      expect(new Date(res.body.runAt).getTime()).toBeLessThanOrEqual(Date.now() + 1000);
      expect(await reach(scheduled.id, JobStatus.COMPLETED)).toMatchObject({ attempts: 1 });

      const retrying = await submit({ type: 'TEST_RECORD', payload: { snoozeMs: 3_600_000 } });
      await reach(retrying.id, JobStatus.RETRYING);
      await t.api().post(`/jobs/${retrying.id}/run-now`).expect(200);
      await reach(retrying.id, JobStatus.COMPLETED);
      expect(await t.invocations(retrying.id)).toBe(2);
    });

    it('409 for a running or finished job, 404 for a missing one, 400 for a bad id', async () => {
      const done = await completed();
      const res = await t.api().post(`/jobs/${done.id}/run-now`);
      expectErrorBody(res, 409);
      expect(res.body).toMatchObject({ jobStatus: 'COMPLETED', message: expect.stringContaining('COMPLETED') });
      controls.hold('run-now-running');
      const running = await submit({ type: 'TEST_CONTROLLED', payload: { name: 'run-now-running' } });
      await reach(running.id, JobStatus.RUNNING);
      expectErrorBody(await t.api().post(`/jobs/${running.id}/run-now`), 409);
      controls.release('run-now-running');
      expectErrorBody(await t.api().post(`/jobs/${randomUUID()}/run-now`), 404);
      expectErrorBody(await t.api().post('/jobs/nope/run-now'), 400);
    });
  });
});
