import { JobStatus } from '@conveyor/core';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/** DELETE /jobs/:id purges a finished job; waiting and running jobs are refused. */
describe('DELETE /jobs/:id', () => {
  let t: RestTestApp;

  beforeAll(async () => {
    t = await createRestTestApp('purge', { engine: { runWorkers: false } });
  });
  afterAll(async () => t?.close());

  const insert = async (status: JobStatus): Promise<string> =>
    (await t.sql.query<{ id: string }>(`INSERT INTO ${t.jobsTable} (type, status) VALUES ('TEST_RECORD', $1) RETURNING id`, [status]))
      .rows[0].id;

  it.each([JobStatus.DEAD, JobStatus.COMPLETED, JobStatus.CANCELLED])('deletes a %s job (204) and it is gone', async (status) => {
    const id = await insert(status);
    const res = await t.api().delete(`/jobs/${id}`);
    expect(res.status).toBe(204);
    expect(await t.row(id)).toBeUndefined();
    expect((await t.api().get(`/jobs/${id}`)).status).toBe(404);
  });

  it.each([JobStatus.PENDING, JobStatus.SCHEDULED, JobStatus.RUNNING, JobStatus.RETRYING])(
    'refuses a %s job with 409 and keeps it',
    async (status) => {
      const id = await insert(status);
      const res = await t.api().delete(`/jobs/${id}`);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ statusCode: 409, error: 'Conflict' });
      expect((await t.row(id))?.status).toBe(status);
    },
  );

  it('answers 404 for an unknown job and 400 for a malformed id', async () => {
    expect((await t.api().delete('/jobs/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const bad = await t.api().delete('/jobs/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: 'id', problems: ['must be a UUID'] }]);
  });
});
