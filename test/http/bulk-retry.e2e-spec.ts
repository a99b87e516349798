import { Job, JobStatus } from '@conveyor/core';
import { waitFor } from '../support/wait-for';
import { ControlledHandler, HandlerControls } from './support/controlled.handler';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/** `POST /jobs/retry`: every DEAD (or CANCELLED) job matching a filter back to PENDING, bounded, in one statement. */
describe('POST /jobs/retry', () => {
  let t: RestTestApp;
  let controls: HandlerControls;

  const submit = async (body: Record<string, unknown>) => (await t.api().post('/jobs').send(body).expect(201)).body as Job;
  const reach = (id: string, status: JobStatus) =>
    waitFor(async () => (await t.statusOf(id)) === status, { message: `job ${id} to be ${status}` });
  /** A DEAD job in `queue`: TEST_CONTROLLED has one attempt, and this name fails. */
  const dead = async (queue: string, name: string, extra: Record<string, unknown> = {}) => {
    controls.failing.add(name);
    const job = await submit({ type: 'TEST_CONTROLLED', payload: { name }, queue, ...extra });
    await reach(job.id, JobStatus.DEAD);
    return job;
  };
  const statuses = async (ids: string[]) => Promise.all(ids.map((id) => t.statusOf(id)));

  beforeAll(async () => {
    t = await createRestTestApp('http_bulk_retry', { providers: [HandlerControls, ControlledHandler] });
    controls = t.app.get(HandlerControls);
  });

  afterAll(async () => {
    controls?.releaseAll();
    await t?.close();
  });

  it('retries the DEAD jobs of one queue only, keeping their history, and they run to COMPLETED', async () => {
    const a = [await dead('bulk-a', 'a1'), await dead('bulk-a', 'a2'), await dead('bulk-a', 'a3')];
    const b = await dead('bulk-b', 'b1');
    await t.api().post('/queues/bulk-a/pause').expect(200);

    const res = await t.api().post('/jobs/retry').send({ queue: 'bulk-a' }).expect(200);
    expect(res.body.retried).toBe(3);
    expect([...res.body.ids].sort()).toEqual(a.map((j) => j.id).sort());
    for (const job of a) {
      expect(await t.row(job.id)).toMatchObject({
        status: 'PENDING',
        attempts: 0,
        finished_at: null,
        errors: [expect.objectContaining({ attempt: 1, kind: 'failed' })],
      });
    }
    expect(await t.statusOf(b.id)).toBe(JobStatus.DEAD);

    for (const name of ['a1', 'a2', 'a3']) controls.failing.delete(name);
    await t.api().post('/queues/bulk-a/resume').expect(200);
    for (const job of a) await reach(job.id, JobStatus.COMPLETED);
    expect(await t.statusOf(b.id)).toBe(JobStatus.DEAD);
  });

  it('takes at most `limit` jobs per call; the next call takes the rest', async () => {
    const jobs = [];
    for (let i = 0; i < 3; i++) jobs.push(await dead('bulk-limit', `l${i}`));
    await t.api().post('/queues/bulk-limit/pause').expect(200);

    expect((await t.api().post('/jobs/retry').send({ queue: 'bulk-limit', limit: 2 }).expect(200)).body.retried).toBe(2);
    // Oldest first.
    expect(await statuses(jobs.map((j) => j.id))).toEqual([JobStatus.PENDING, JobStatus.PENDING, JobStatus.DEAD]);
    expect((await t.api().post('/jobs/retry').send({ queue: 'bulk-limit', limit: 2 }).expect(200)).body.retried).toBe(1);
    expect((await t.api().post('/jobs/retry').send({ queue: 'bulk-limit', limit: 2 }).expect(200)).body).toEqual({ retried: 0, ids: [] });
  });

  it('filters by type and idempotency-key text, and retries CANCELLED jobs only when asked', async () => {
    const keyed = await dead('bulk-f', 'k1', { idempotencyKey: 'invoice-100%_x' });
    const other = await dead('bulk-f', 'k2', { idempotencyKey: 'invoice-200' });
    const cancelled = await submit({ type: 'TEST_RECORD', payload: {}, queue: 'bulk-f', delayMs: 3_600_000 });
    await t.api().post(`/jobs/${cancelled.id}/cancel`).expect(200);
    await t.api().post('/queues/bulk-f/pause').expect(200);

    // LIKE wildcards in the text are literal.
    expect((await t.api().post('/jobs/retry').send({ queue: 'bulk-f', key: '0%_' }).expect(200)).body.ids).toEqual([keyed.id]);
    expect((await t.api().post('/jobs/retry').send({ queue: 'bulk-f', type: 'TEST_RECORD' }).expect(200)).body.retried).toBe(0);
    expect(await t.statusOf(cancelled.id)).toBe(JobStatus.CANCELLED);
    expect((await t.api().post('/jobs/retry').send({ queue: 'bulk-f', status: 'CANCELLED' }).expect(200)).body.ids).toEqual([cancelled.id]);
    expect(await statuses([keyed.id, other.id, cancelled.id])).toEqual([JobStatus.PENDING, JobStatus.DEAD, JobStatus.PENDING]);
  });

  it('leaves a job whose unique key a waiting job holds, and retries only the newest of jobs sharing a key', async () => {
    const first = await dead('bulk-u', 'u1', { uniqueKey: 'report-42' });
    const second = await dead('bulk-u', 'u2', { uniqueKey: 'report-42' });
    const third = await dead('bulk-u', 'u3', { uniqueKey: 'report-43' });
    await t.api().post('/queues/bulk-u/pause').expect(200);
    const holder = await submit({ type: 'TEST_CONTROLLED', payload: { name: 'u4' }, queue: 'bulk-u', uniqueKey: 'report-43' });
    expect(holder.id).not.toBe(third.id);

    expect((await t.api().post('/jobs/retry').send({ queue: 'bulk-u' }).expect(200)).body.ids).toEqual([second.id]);
    expect(await statuses([first.id, second.id, third.id, holder.id])).toEqual([
      JobStatus.DEAD,
      JobStatus.PENDING,
      JobStatus.DEAD,
      JobStatus.PENDING,
    ]);
    // Now every DEAD one is blocked by a waiting job with its key.
    expect((await t.api().post('/jobs/retry').send({ queue: 'bulk-u' }).expect(200)).body.retried).toBe(0);
  });

  it('a filter holding a lone surrogate is a 400 naming it: pg would send U+FFFD in its place and match other jobs', async () => {
    const job = await dead('bulk-surrogate', 'sur1', { idempotencyKey: 'report-\ufffd-1' });
    for (const [body, field] of [
      [{ queue: 'bulk-surrogate', key: '\ud800' }, 'key'],
      [{ queue: 'bulk-surrogate', type: 'TEST_CONTROLLED\udc00' }, 'type'],
      [{ queue: 'bulk-surrogate\ud800' }, 'queue'],
    ] as const) {
      const res = await t.api().post('/jobs/retry').send(body);
      expectErrorBody(res, 400, [field]);
      expect(res.body.details[0].problems).toEqual([`${field} must not contain an unpaired UTF-16 surrogate`]);
    }
    expect(await t.statusOf(job.id)).toBe(JobStatus.DEAD);
  });

  it('400 naming the field for a bad filter, and nothing changes', async () => {
    const job = await dead('bulk-bad', 'bad1');
    for (const [body, field] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 1001 }, 'limit'],
      [{ status: 'COMPLETED' }, 'status'],
      [{ queue: '' }, 'queue'],
      [{ key: 'a\u0000b' }, 'key'],
      [{ everything: true }, 'everything'],
    ] as const) {
      expectErrorBody(await t.api().post('/jobs/retry').send(body), 400, [field]);
    }
    // null too: read as {}, it retried every DEAD job.
    for (const body of ['[]', '"x"', '3', 'null']) {
      expectErrorBody(await t.api().post('/jobs/retry').set('content-type', 'application/json').send(body), 400, ['body']);
    }
    expect(await t.statusOf(job.id)).toBe(JobStatus.DEAD);
  });
});
