import { Job, JobStatus, UniqueKeyConflictError } from '@conveyor/core';
import { PoolClient } from 'pg';
import { waitFor } from '../support/wait-for';
import { expectErrorBody } from './support/error-body.assertions';
import { postJsonOnNewConnection } from './support/raw-http';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/**
 * Unique jobs: at most one waiting or running job per (type, uniqueKey). While one exists a submission with
 * the key answers it (200); once it finished the key is free. Enforced by a partial unique index, so
 * concurrent submissions cannot race past it.
 */
describe('unique jobs (uniqueKey)', () => {
  let t: RestTestApp;
  /**
   * Once the bulk retry waits for a key `tx` (backend `pid`) holds, `tx` locks the listed row `id` the bulk statement
   * holds, and PostgreSQL aborts the bulk statement, which waited first, to break the deadlock; then `tx` rolls back.
   */
  const closeTheCycle = async (tx: PoolClient, pid: number, id: string) => {
    await waitFor(
      async () => (await t.sql.query('SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid])).rowCount! > 0,
      { message: 'the bulk retry to wait for the held key' },
    );
    await tx.query(`SELECT 1 FROM ${t.jobsTable} WHERE id = $1 FOR UPDATE`, [id]);
    await tx.query('ROLLBACK');
  };
  const later = { delayMs: 3_600_000 }; // SCHEDULED: waiting for the whole test
  const holding = (type: string, key: string) =>
    t.rows("type = $1 AND unique_key = $2 AND status IN ('SCHEDULED','PENDING','RETRYING','RUNNING')", [type, key]);
  const post = (body: Record<string, unknown>) => t.api().post('/jobs').send(body);

  beforeAll(async () => {
    t = await createRestTestApp('http_unique');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('a duplicate while the first waits answers that job (200), and the key is on the job', async () => {
    const first = await post({ type: 'TEST_RECORD', payload: { n: 1 }, uniqueKey: 'user-1', ...later }).expect(201);
    expect(first.body).toMatchObject({ uniqueKey: 'user-1', status: JobStatus.SCHEDULED });
    // Another payload, priority and schedule: deduplication answers the existing job as it is.
    const dup = await post({ type: 'TEST_RECORD', payload: { n: 2 }, priority: 5, uniqueKey: 'user-1' }).expect(200);
    expect(dup.body).toEqual(first.body);
    expect((await t.api().get(`/jobs/${first.body.id}`).expect(200)).body.uniqueKey).toBe('user-1');
    expect((await holding('TEST_RECORD', 'user-1')).map((r) => r.id)).toEqual([first.body.id]);
  });

  it('the key is per type: another type with the same key is another job', async () => {
    const a = await post({ type: 'TEST_RECORD', payload: {}, uniqueKey: 'shared', ...later }).expect(201);
    const b = await post({ type: 'TEST_MAIL', payload: { to: 'ada@example.com', subject: 'x' }, uniqueKey: 'shared', ...later }).expect(
      201,
    );
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('once the job completed, the key is free: a new submission creates a new job', async () => {
    const first = await post({ type: 'TEST_RECORD', payload: {}, uniqueKey: 'refresh-7' }).expect(201);
    await waitFor(async () => (await t.statusOf(first.body.id)) === JobStatus.COMPLETED, { message: 'the first job to complete' });
    const second = await post({ type: 'TEST_RECORD', payload: {}, uniqueKey: 'refresh-7', ...later }).expect(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect((await t.rows('unique_key = $1', ['refresh-7'])).map((r) => r.status)).toEqual([JobStatus.COMPLETED, JobStatus.SCHEDULED]);
  });

  it('30 concurrent submissions with one key over 30 separate connections create one job', async () => {
    const body = { type: 'TEST_RECORD', payload: { report: 'monthly' }, uniqueKey: 'burst-30', ...later };
    const answers = await Promise.all(Array.from({ length: 30 }, () => postJsonOnNewConnection(t.baseUrl, '/jobs', body)));
    expect(new Set(answers.map((a) => a.localPort)).size).toBe(30);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(29);
    const ids = new Set(answers.map((a) => (a.body as Job).id));
    expect(ids.size).toBe(1);
    expect((await t.rows('unique_key = $1', ['burst-30'])).map((r) => r.id)).toEqual([...ids]);
  });

  it('a batch with a duplicate inside, and one whose key is held already, stores one job per key (one statement)', async () => {
    const held = await post({ type: 'TEST_RECORD', payload: {}, uniqueKey: 'batch-held', ...later }).expect(201);
    const res = await t
      .api()
      .post('/jobs/batch')
      .send({
        jobs: [
          { type: 'TEST_RECORD', payload: { i: 0 }, uniqueKey: 'batch-a', ...later },
          { type: 'TEST_RECORD', payload: { i: 1 } },
          { type: 'TEST_RECORD', payload: { i: 2 }, uniqueKey: 'batch-a', ...later },
          { type: 'TEST_RECORD', payload: { i: 3 }, uniqueKey: 'batch-held' },
          { type: 'TEST_RECORD', payload: { i: 4 }, uniqueKey: 'batch-b', ...later },
        ],
      })
      .expect(201);
    const jobs = res.body.jobs as Job[];
    expect(jobs.map((j) => j.uniqueKey)).toEqual(['batch-a', null, 'batch-a', 'batch-held', 'batch-b']);
    expect(jobs[2].id).toBe(jobs[0].id);
    expect(jobs[0].payload).toEqual({ i: 0 });
    expect(jobs[1].payload).toEqual({ i: 1 });
    expect(jobs[3].id).toBe(held.body.id);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(4);
    expect(await holding('TEST_RECORD', 'batch-a')).toHaveLength(1);
  });

  it('works from code: enqueue and enqueueMany answer the holder', async () => {
    const first = await t.jobs.enqueue('TEST_RECORD', { from: 'code' }, { uniqueKey: 'code-1', delayMs: 3_600_000 });
    const again = await t.jobs.enqueue('TEST_RECORD', { from: 'code', again: true }, { uniqueKey: 'code-1' });
    expect(again.id).toBe(first.id);
    const many = await t.jobs.enqueueMany([
      { type: 'TEST_RECORD', payload: {}, uniqueKey: 'code-1' },
      { type: 'TEST_RECORD', payload: {}, uniqueKey: 'code-2', delayMs: 3_600_000 },
    ]);
    expect(many[0].id).toBe(first.id);
    expect(many[1].uniqueKey).toBe('code-2');
  });

  it('with an idempotency key too: a repeat answers by idempotency key; a new key whose unique key is held answers the holder', async () => {
    const body = { type: 'TEST_RECORD', payload: {}, uniqueKey: 'both-1', idempotencyKey: 'idem-both-1', ...later };
    const first = await post(body).expect(201);
    expect((await post(body).expect(200)).body.id).toBe(first.body.id);
    // The same idempotency key with another unique key is another request.
    expectErrorBody(await post({ ...body, uniqueKey: 'both-2' }), 409);
    const other = await post({ ...body, idempotencyKey: 'idem-both-2' }).expect(200);
    expect(other.body.id).toBe(first.body.id);
    expect(await t.rows('unique_key = $1', ['both-1'])).toHaveLength(1);
  });

  it('retrying a finished job whose key a newer job holds is a 409 naming that job; once it is gone, the retry works', async () => {
    const old = await post({ type: 'TEST_RECORD', payload: { v: 1 }, uniqueKey: 'retry-1', ...later }).expect(201);
    await t.api().post(`/jobs/${old.body.id}/cancel`).expect(200);
    const newer = await post({ type: 'TEST_RECORD', payload: { v: 2 }, uniqueKey: 'retry-1', ...later }).expect(201);

    const res = await t.api().post(`/jobs/${old.body.id}/retry`);
    expectErrorBody(res, 409);
    expect(res.body.message).toContain('retry-1');
    expect(res.body.message).toContain(newer.body.id);
    expect(await t.statusOf(old.body.id)).toBe(JobStatus.CANCELLED);
    await expect(t.jobs.retry(old.body.id)).rejects.toThrow(UniqueKeyConflictError);

    await t.api().post(`/jobs/${newer.body.id}/cancel`).expect(200);
    expect((await t.api().post(`/jobs/${old.body.id}/retry`).expect(200)).body.status).toBe(JobStatus.PENDING);
  });

  it("POST /jobs/bulk/retry answers each id as the single retry would: the holder's 409 for a held key, the first of a shared one retried", async () => {
    const cancelled = async (uniqueKey?: string) => {
      const res = await post({ type: 'TEST_RECORD', payload: {}, queue: 'bulk-ids-unique', uniqueKey, ...later }).expect(201);
      await t.api().post(`/jobs/${res.body.id}/cancel`).expect(200);
      return res.body.id as string;
    };
    // Paused, so the retried jobs stay PENDING and keep their keys while the rest are answered.
    await t.api().post('/queues/bulk-ids-unique/pause').expect(200);
    const free = await cancelled();
    const held = await cancelled('ids-held');
    const holder = (await post({ type: 'TEST_RECORD', payload: {}, uniqueKey: 'ids-held', ...later }).expect(201)).body.id as string;
    const sharedFirst = await cancelled('ids-shared');
    const sharedSecond = await cancelled('ids-shared');

    const res = await t
      .api()
      .post('/jobs/bulk/retry')
      .send({ ids: [free, held, sharedFirst, sharedSecond] })
      .expect(200);
    expect(res.body.results).toEqual([
      { id: free, ok: true, status: JobStatus.PENDING },
      { id: held, ok: false, status: JobStatus.CANCELLED, statusCode: 409, message: expect.stringContaining(holder) },
      { id: sharedFirst, ok: true, status: JobStatus.PENDING },
      { id: sharedSecond, ok: false, status: JobStatus.CANCELLED, statusCode: 409, message: expect.stringContaining(sharedFirst) },
    ]);
    expect(await Promise.all([free, held, sharedFirst, sharedSecond].map((id) => t.statusOf(id)))).toEqual([
      JobStatus.PENDING,
      JobStatus.CANCELLED,
      JobStatus.PENDING,
      JobStatus.CANCELLED,
    ]);
  });

  it('POST /jobs/bulk/retry by ids chosen as the victim of a deadlock on a unique key still settles every id', async () => {
    const cancelled = async (uniqueKey: string) => {
      const res = await post({ type: 'TEST_RECORD', payload: {}, queue: 'bulk-ids-deadlock', uniqueKey, ...later }).expect(201);
      await t.api().post(`/jobs/${res.body.id}/cancel`).expect(200);
      return res.body.id as string;
    };
    await t.api().post('/queues/bulk-ids-deadlock/pause').expect(200);
    const listed = [await cancelled('deadlock-a'), await cancelled('deadlock-b')];
    const other = await cancelled('deadlock-b');
    // Another transaction takes key deadlock-b first (as a batch insert or another bulk retry with the same keys
    // would), so the bulk statement, holding the rows of both listed jobs, waits for it; that transaction then waits
    // for a listed row. The bulk statement waited first, so it is the one PostgreSQL aborts.
    const tx = await t.sql.connect();
    try {
      await tx.query("BEGIN; SET LOCAL deadlock_timeout = '60s'");
      await tx.query(`UPDATE ${t.jobsTable} SET status = 'PENDING' WHERE id = $1`, [other]);
      const pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const answer = t
        .api()
        .post('/jobs/bulk/retry')
        .send({ ids: listed })
        .then((res) => res);
      await closeTheCycle(tx, pid, listed[0]);
      const res = await answer;
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual(listed.map((id) => ({ id, ok: true, status: JobStatus.PENDING })));
      expect(await Promise.all(listed.map((id) => t.statusOf(id)))).toEqual([JobStatus.PENDING, JobStatus.PENDING]);
    } finally {
      await tx.query('ROLLBACK').catch(() => undefined);
      tx.release();
    }
  });

  it('POST /jobs/retry chosen as the victim of a deadlock on a unique key is run again: 200, and every job is retried', async () => {
    const cancelled = async (uniqueKey: string) => {
      const res = await post({ type: 'TEST_RECORD', payload: {}, queue: 'bulk-filter-deadlock', uniqueKey, ...later }).expect(201);
      await t.api().post(`/jobs/${res.body.id}/cancel`).expect(200);
      return res.body.id as string;
    };
    await t.api().post('/queues/bulk-filter-deadlock/pause').expect(200);
    const listed = [await cancelled('filter-deadlock-a'), await cancelled('filter-deadlock-b')];
    // Another transaction takes key filter-deadlock-b first, as a batch insert would, so the bulk statement, holding
    // the rows of both jobs, waits for it; that transaction then waits for one of those rows and rolls back.
    const tx = await t.sql.connect();
    try {
      await tx.query("BEGIN; SET LOCAL deadlock_timeout = '60s'");
      await tx.query(
        `INSERT INTO ${t.jobsTable} (queue, type, payload, status, run_at, unique_key)
         VALUES ('elsewhere', 'TEST_RECORD', '{}', 'SCHEDULED', now() + interval '1 hour', 'filter-deadlock-b')`,
      );
      const pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const answer = t
        .api()
        .post('/jobs/retry')
        .send({ status: JobStatus.CANCELLED, queue: 'bulk-filter-deadlock' })
        .then((res) => res);
      await closeTheCycle(tx, pid, listed[0]);
      const res = await answer;
      expect(res.status).toBe(200);
      // Run again before that rollback, the statement skips the row the other transaction locked: the next call takes it.
      const rest = await t.api().post('/jobs/retry').send({ status: JobStatus.CANCELLED, queue: 'bulk-filter-deadlock' }).expect(200);
      expect([...res.body.ids, ...rest.body.ids].sort()).toEqual([...listed].sort());
      expect(await Promise.all(listed.map((id) => t.statusOf(id)))).toEqual([JobStatus.PENDING, JobStatus.PENDING]);
    } finally {
      await tx.query('ROLLBACK').catch(() => undefined);
      tx.release();
    }
  });

  it('a bulk retry leaves a job whose key is held, and of jobs sharing a key retries only one', async () => {
    const cancelled = async (uniqueKey?: string) => {
      const res = await post({ type: 'TEST_RECORD', payload: {}, queue: 'bulk-unique', uniqueKey, ...later }).expect(201);
      await t.api().post(`/jobs/${res.body.id}/cancel`).expect(200);
      return res.body.id as string;
    };
    const sharedOld = await cancelled('bulk-1');
    const sharedNew = await cancelled('bulk-1');
    const held = await cancelled('bulk-2');
    const holder = await post({ type: 'TEST_RECORD', payload: {}, queue: 'bulk-unique', uniqueKey: 'bulk-2', ...later }).expect(201);
    const plain = await cancelled();

    const res = await t.api().post('/jobs/retry').send({ status: JobStatus.CANCELLED, queue: 'bulk-unique' }).expect(200);
    const ids = res.body.ids as string[];
    expect(ids).toHaveLength(2);
    expect(ids).toContain(plain);
    expect(ids.filter((id) => id === sharedOld || id === sharedNew)).toHaveLength(1);
    expect(await t.statusOf(held)).toBe(JobStatus.CANCELLED);
    expect(await t.statusOf(holder.body.id)).toBe(JobStatus.SCHEDULED);
  });

  it.each([
    ['an empty key', '', 'uniqueKey'],
    ['a key of 256 characters', 'k'.repeat(256), 'uniqueKey'],
    ['a key with NUL', 'a\u0000b', 'uniqueKey'],
    ['a number', 42, 'uniqueKey'],
  ])('400 naming uniqueKey for %s, nothing stored', async (_case, uniqueKey, field) => {
    const before = (await t.rows()).length;
    expectErrorBody(await post({ type: 'TEST_RECORD', payload: {}, uniqueKey }), 400, [field]);
    const batch = await t
      .api()
      .post('/jobs/batch')
      .send({
        jobs: [
          { type: 'TEST_RECORD', payload: {} },
          { type: 'TEST_RECORD', payload: {}, uniqueKey },
        ],
      });
    expectErrorBody(batch, 400, [`jobs[1].${field}`]);
    expect(await t.rows()).toHaveLength(before);
  });
});
