import { Job, JobStatus } from '@conveyor/core';
import { waitFor } from '../support/wait-for';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

interface QueueView {
  name: string;
  paused: boolean;
  counts: Record<JobStatus, number>;
  ready: number;
  oldestReadyAgeSeconds: number | null;
}

const NO_JOBS: Record<JobStatus, number> = { SCHEDULED: 0, PENDING: 0, RUNNING: 0, RETRYING: 0, COMPLETED: 0, DEAD: 0, CANCELLED: 0 };

/** `GET /queues` and pausing/resuming a queue, on a worker-enabled app. */
describe('GET /queues, POST /queues/:queue/pause and /resume', () => {
  let t: RestTestApp;

  const submit = async (body: Record<string, unknown>) => (await t.api().post('/jobs').send(body).expect(201)).body as Job;
  const queues = async () => (await t.api().get('/queues').expect(200)).body.queues as QueueView[];
  const queue = async (name: string) => (await queues()).find((q) => q.name === name);
  const reach = (id: string, status: JobStatus) =>
    waitFor(async () => (await t.statusOf(id)) === status, { message: `job ${id} to be ${status}` });
  const pausedInDb = async (name: string) =>
    (await t.sql.query(`SELECT paused FROM ${t.db.queuesTable} WHERE name = $1`, [name])).rows[0]?.paused as boolean | undefined;

  beforeAll(async () => {
    t = await createRestTestApp('http_queues');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('pause answers 200 with the queue and records it; resume undoes it', async () => {
    expect((await t.api().post('/queues/reports/pause').expect(200)).body).toEqual({ name: 'reports', paused: true });
    expect(await pausedInDb('reports')).toBe(true);
    // Pausing twice is no error.
    expect((await t.api().post('/queues/reports/pause').expect(200)).body).toEqual({ name: 'reports', paused: true });
    expect((await t.api().post('/queues/reports/resume').expect(200)).body).toEqual({ name: 'reports', paused: false });
    expect(await pausedInDb('reports')).toBe(false);
  });

  it('a paused queue keeps accepting jobs but none is claimed while other queues run; resume runs them', async () => {
    await t.api().post('/queues/slow-lane/pause').expect(200);
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await submit({ type: 'TEST_RECORD', payload: { i }, queue: 'slow-lane' }));
    // Submitted after the held jobs and at a lower priority: a worker that would claim from the paused
    // queue would have taken those first.
    const others = [];
    for (let i = 0; i < 3; i++) others.push(await submit({ type: 'TEST_RECORD', payload: { i }, queue: 'fast-lane', priority: 10 }));
    for (const job of others) await reach(job.id, JobStatus.COMPLETED);

    for (const job of held) {
      expect(await t.statusOf(job.id)).toBe(JobStatus.PENDING);
      expect(await t.invocations(job.id)).toBe(0);
    }
    expect(await queue('slow-lane')).toMatchObject({ paused: true, counts: { ...NO_JOBS, PENDING: 3 }, ready: 3 });

    await t.api().post('/queues/slow-lane/resume').expect(200);
    for (const job of held) await reach(job.id, JobStatus.COMPLETED);
    for (const job of held) expect(await t.invocations(job.id)).toBe(1);
    expect(await queue('slow-lane')).toMatchObject({
      paused: false,
      counts: { ...NO_JOBS, COMPLETED: 3 },
      ready: 0,
      oldestReadyAgeSeconds: null,
    });
  });

  it('counts every status per queue and gives the age of the oldest ready job', async () => {
    await t.api().post('/queues/stats/pause').expect(200);
    const minuteAgo = new Date(Date.now() - 60_000).toISOString();
    await submit({ type: 'TEST_RECORD', payload: {}, queue: 'stats', runAt: minuteAgo });
    await submit({ type: 'TEST_RECORD', payload: {}, queue: 'stats' });
    await submit({ type: 'TEST_RECORD', payload: {}, queue: 'stats', delayMs: 3_600_000 });
    const toCancel = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'stats' });
    await t.api().post(`/jobs/${toCancel.id}/cancel`).expect(200);
    const toKill = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'stats' });
    await t.sql.query(`UPDATE ${t.jobsTable} SET status = 'DEAD' WHERE id = $1`, [toKill.id]);

    const stats = (await queue('stats'))!;
    expect(stats).toMatchObject({
      name: 'stats',
      paused: true,
      ready: 2,
      counts: { ...NO_JOBS, PENDING: 2, SCHEDULED: 1, CANCELLED: 1, DEAD: 1 },
    });
    expect(stats.oldestReadyAgeSeconds).toBeGreaterThanOrEqual(60);
    expect(stats.oldestReadyAgeSeconds).toBeLessThan(120);

    // The counts agree with the table, for every queue.
    const { rows } = await t.sql.query<{ queue: string; status: JobStatus; n: number }>(
      `SELECT queue, status, count(*)::int AS n FROM ${t.jobsTable} GROUP BY queue, status`,
    );
    const all = await queues();
    for (const r of rows) expect(all.find((q) => q.name === r.queue)!.counts[r.status]).toBe(r.n);
  });

  it('requests at once share one count: one statement runs, and every request gets its answer', async () => {
    // A pause drops this process's kept counts, so the next look reads the table.
    await t.api().post('/queues/shared-count/pause').expect(200);
    // The count waits behind this lock, as it would behind a slow read of a large table.
    const locker = await t.sql.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${t.jobsTable} IN ACCESS EXCLUSIVE MODE`);
      const asked = Array.from({ length: 8 }, () => t.api().get('/queues'));
      const pending = Promise.all(asked.map(async (r) => await r));
      const counting = async () =>
        (
          await t.sql.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND query LIKE '%FULL OUTER JOIN%'`,
            [`%${t.jobsTable}%`],
          )
        ).rows[0].n;
      await waitFor(async () => (await counting()) > 0, { message: 'the count to wait on the lock' });
      // Unshared, each request would have its own statement waiting by now (the pool holds more than 8).
      for (let i = 0; i < 5; i++) expect(await counting()).toBe(1);
      await locker.query('ROLLBACK');
      const answers = await pending;
      for (const a of answers) expect(a.status).toBe(200);
      expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
    }
  });

  it('counts catch up with changes within seconds, and a pause or resume shows at once', async () => {
    await t.api().post('/queues/catch-up/pause').expect(200);
    expect(await queue('catch-up')).toMatchObject({ paused: true, counts: NO_JOBS });
    const job = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'catch-up' });
    await waitFor(async () => (await queue('catch-up'))?.counts.PENDING === 1, { message: 'the new job to be counted' });
    await t.api().post('/queues/catch-up/resume').expect(200);
    expect(await queue('catch-up')).toMatchObject({ paused: false });
    await reach(job.id, JobStatus.COMPLETED);
    await waitFor(async () => (await queue('catch-up'))?.counts.COMPLETED === 1, { message: 'the finished job to be counted' });
    expect(await queue('catch-up')).toMatchObject({ counts: { ...NO_JOBS, COMPLETED: 1 }, ready: 0 });
  });

  it('lists a paused queue that has no jobs, with zero counts', async () => {
    await t.api().post('/queues/empty-and-paused/pause').expect(200);
    expect(await queue('empty-and-paused')).toEqual({
      name: 'empty-and-paused',
      paused: true,
      counts: NO_JOBS,
      ready: 0,
      oldestReadyAgeSeconds: null,
    });
  });

  it('400 naming queue for a malformed queue name, and nothing recorded', async () => {
    for (const name of ['two%20words', 'semi%3Bcolon', 'x'.repeat(201)]) {
      expectErrorBody(await t.api().post(`/queues/${name}/pause`), 400, ['queue']);
      expectErrorBody(await t.api().post(`/queues/${name}/resume`), 400, ['queue']);
    }
    const { rows } = await t.sql.query(`SELECT name FROM ${t.db.queuesTable} WHERE name !~ '^[A-Za-z0-9_.:-]+$'`);
    expect(rows).toEqual([]);
  });
});
