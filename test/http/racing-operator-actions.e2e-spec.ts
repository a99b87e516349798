import { JobStatus } from '@conveyor/core';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/**
 * Two operators acting on the same job at once. A state-guarded action (cancel, run-now, retry, delete) that is
 * refused must be refused for a state it refuses: a 409 naming a state the action accepts contradicts itself.
 */
describe('Operator actions racing each other', () => {
  let t: RestTestApp;
  const ROUNDS = 40;
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

  beforeAll(async () => {
    t = await createRestTestApp('http_racing_actions');
    // A retried job stays PENDING, so the stored state is the one the answers left.
    await t.api().post('/queues/racing/pause').expect(200);
  });

  afterAll(async () => {
    await t?.close();
  });

  /** Jobs of the paused queue, set to `status` as the test needs. */
  const waitingJobs = async (status: JobStatus) => {
    const ids: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      ids.push(
        (await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: { i }, queue: 'racing', runAt: inAnHour() }).expect(201)).body.id,
      );
    }
    await t.sql.query(`UPDATE ${t.jobsTable} SET status = $2, finished_at = now() WHERE id = ANY($1)`, [ids, status]);
    return ids;
  };

  it('a cancel racing the retry of a DEAD job is a 200 (now CANCELLED) or a 409 naming DEAD, never another state', async () => {
    const ids = await waitingJobs(JobStatus.DEAD);
    const answers = await Promise.all(
      ids.map(async (id) => {
        const [retry, cancel] = await Promise.all([t.api().post(`/jobs/${id}/retry`), t.api().post(`/jobs/${id}/cancel`)]);
        return { id, retry: retry.status, cancel: cancel.status, refusedAs: cancel.body.jobStatus as string | undefined };
      }),
    );
    for (const a of answers) {
      expect({ ...a, stored: await t.statusOf(a.id) }).toEqual(
        a.cancel === 200
          ? { ...a, retry: 200, refusedAs: undefined, stored: JobStatus.CANCELLED }
          : { ...a, cancel: 409, refusedAs: JobStatus.DEAD, stored: JobStatus.PENDING },
      );
    }
  });

  it('a delete racing the cancel of a waiting job is a 204 (gone) or a 409 naming the waiting state, never CANCELLED', async () => {
    const ids = await waitingJobs(JobStatus.PENDING);
    const answers = await Promise.all(
      ids.map(async (id) => {
        const [cancel, purge] = await Promise.all([t.api().post(`/jobs/${id}/cancel`), t.api().delete(`/jobs/${id}`)]);
        return { id, cancel: cancel.status, purge: purge.status, refusedAs: purge.body.jobStatus as string | undefined };
      }),
    );
    for (const a of answers) {
      expect({ ...a, stored: await t.statusOf(a.id) }).toEqual(
        a.purge === 204
          ? { ...a, cancel: 200, refusedAs: undefined, stored: undefined }
          : { ...a, purge: 409, refusedAs: JobStatus.PENDING, stored: JobStatus.CANCELLED },
      );
    }
  });

  it('a bulk retry racing single cancels of its DEAD jobs retries every one; each cancel is a 200 or a 409 naming DEAD', async () => {
    const ids = await waitingJobs(JobStatus.DEAD);
    const [bulk, ...cancels] = await Promise.all([
      t.api().post('/jobs/bulk/retry').send({ ids }),
      ...ids.map((id) => t.api().post(`/jobs/${id}/cancel`)),
    ]);
    expect(bulk.body).toMatchObject({ succeeded: ROUNDS, failed: 0 });
    for (const [i, id] of ids.entries()) {
      const a = { id, cancel: cancels[i].status, refusedAs: cancels[i].body.jobStatus as string | undefined, stored: await t.statusOf(id) };
      expect(a).toEqual(
        a.cancel === 200
          ? { ...a, refusedAs: undefined, stored: JobStatus.CANCELLED }
          : { ...a, cancel: 409, refusedAs: JobStatus.DEAD, stored: JobStatus.PENDING },
      );
    }
  });

  it('a bulk delete racing single cancels of its waiting jobs: each gone, or refused naming the waiting state, never CANCELLED', async () => {
    const ids = await waitingJobs(JobStatus.PENDING);
    const [bulk, ...cancels] = await Promise.all([
      t.api().post('/jobs/bulk/delete').send({ ids }),
      ...ids.map((id) => t.api().post(`/jobs/${id}/cancel`)),
    ]);
    for (const [i, id] of ids.entries()) {
      const result = (bulk.body.results as { id: string; ok: boolean; status: string | null }[]).find((r) => r.id === id)!;
      const a = { id, deleted: result.ok, status: result.status, cancel: cancels[i].status, stored: await t.statusOf(id) };
      expect(a).toEqual(
        a.deleted
          ? { ...a, status: null, cancel: 200, stored: undefined }
          : { ...a, status: JobStatus.PENDING, cancel: 200, stored: JobStatus.CANCELLED },
      );
    }
  });
});
