import { Job, JobStatus } from '@conveyor/core';
import { waitFor } from '../support/wait-for';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/**
 * A statement the server cancels — its `statement_timeout`, or an operator's `pg_cancel_backend` (SQLSTATE 57014 both)
 * — is a 503 with Retry-After that says so, not a 500: the request may succeed when sent again.
 */
describe('a request whose statement the server cancels', () => {
  let t: RestTestApp;

  beforeAll(async () => {
    t = await createRestTestApp('http_statement_cancelled', { engine: { runWorkers: false } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers 503 with Retry-After, naming the cancel, and the job is as it was', async () => {
    const job = (await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {} }).expect(201)).body as Job;
    const locker = await t.sql.connect();
    try {
      // Hold the job's row so the cancel's statement waits on it, then cancel that statement as an operator would.
      await locker.query('BEGIN');
      await locker.query(`SELECT 1 FROM ${t.jobsTable} WHERE id = $1 FOR UPDATE`, [job.id]);
      const answer = t
        .api()
        .post(`/jobs/${job.id}/cancel`)
        .then((res) => res);
      const waiting = await waitFor(
        async () =>
          (
            await t.sql.query<{ pid: number }>(
              `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%CANCELLED%' AND pid <> pg_backend_pid()`,
            )
          ).rows[0]?.pid,
        { message: "the cancel's statement to wait on the row" },
      );
      await t.sql.query('SELECT pg_cancel_backend($1)', [waiting]);
      const res = await answer;
      expectErrorBody(res, 503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body.message).toMatch(/cancelled the statement.*statement_timeout/);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
    }
    expect(await t.statusOf(job.id)).toBe(JobStatus.PENDING);
  });
});
