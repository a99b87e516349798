import { randomBytes, randomUUID } from 'node:crypto';
import { JobStatus } from '@conveyor/core';
import { MAX_CLAIM_ANSWER_PAYLOAD_CHARS, MAX_CLAIM_PAYLOAD_BYTES } from '@conveyor/core/consumer/external-workers/external-workers.service';
import { expectErrorBody } from '../http/support/error-body.assertions';
import { createRestTestApp, JobRecord, RestTestApp } from '../http/support/rest-test-app';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text';
import { waitFor } from '../support/wait-for';

/** A job as `POST /queues/:queue/claim` hands it out. */
interface ClaimedJob {
  id: string;
  type: string;
  queue: string;
  payload: unknown;
  priority: number;
  attempts: number;
  maxAttempts: number;
  leaseToken: string;
  lockedUntil: string;
}

/** Columns a refused report must leave exactly as they were. */
const FENCED_COLUMNS = [
  'status',
  'attempts',
  'lease_token',
  'locked_by',
  'locked_until',
  'version',
  'result',
  'last_error',
  'errors',
  'run_at',
];

/**
 * The HTTP endpoints of external workers, on an app whose in-process workers run too: claim, heartbeat,
 * complete and fail, with the database as the judge. TEST_RECORD has an in-process handler but is declared
 * external here, so in-process workers must leave it alone.
 */
describe('external workers over HTTP', () => {
  let t: RestTestApp;
  const EXTERNAL = ['EXT_A', 'EXT_B', 'TEST_RECORD'];

  const claim = (queue: string, body: Record<string, unknown>) => t.api().post(`/queues/${queue}/claim`).send(body);
  const claimed = async (queue: string, body: Record<string, unknown>): Promise<ClaimedJob[]> => {
    const res = await claim(queue, body).expect(200);
    return (res.body as { jobs: ClaimedJob[] }).jobs;
  };
  const enqueue = async (type: string, queue: string, extra: Record<string, unknown> = {}) =>
    (await t.jobs.enqueue(type, { n: 1 }, { queue, ...extra })).id;
  const fenced = (row: JobRecord | undefined) => Object.fromEntries(FENCED_COLUMNS.map((c) => [c, row?.[c]]));
  const metric = async (name: string, labels: Record<string, string>) =>
    sampleValue(parsePrometheusText((await t.api().get('/metrics').expect(200)).text), name, labels) ?? 0;

  beforeAll(async () => {
    t = await createRestTestApp('ext_workers', { engine: { externalTypes: EXTERNAL, claimBatchSize: 10 } });
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('claim', () => {
    it('hands out due jobs of the queue by priority then run_at, RUNNING under a fresh lease token of that claim', async () => {
      const low = await enqueue('EXT_A', 'claim-order', { priority: 5 });
      const first = await enqueue('EXT_B', 'claim-order');
      const second = await enqueue('EXT_A', 'claim-order');
      const elsewhere = await enqueue('EXT_A', 'claim-elsewhere');
      const later = await enqueue('EXT_A', 'claim-order', { delayMs: 3_600_000 });

      const before = Date.now();
      const jobs = await claimed('claim-order', { workerId: 'ext-1', max: 2, leaseMs: 20_000 });
      expect(jobs.map((j) => j.id)).toEqual([first, second]);
      expect(jobs[0]).toMatchObject({ type: 'EXT_B', queue: 'claim-order', payload: { n: 1 }, attempts: 1, priority: 0 });
      for (const job of jobs) {
        const row = await t.row(job.id);
        expect(row).toMatchObject({ status: 'RUNNING', locked_by: 'ext-1', lease_token: job.leaseToken, attempts: 1 });
        expect(new Date(job.lockedUntil).getTime()).toBe((row!.locked_until as Date).getTime());
        expect((row!.locked_until as Date).getTime()).toBeGreaterThanOrEqual(before + 15_000);
      }

      const next = await claimed('claim-order', { workerId: 'ext-1', max: 10 });
      expect(next.map((j) => j.id)).toEqual([low]);
      expect(jobs.map((j) => j.leaseToken)).not.toContain(next[0].leaseToken);
      expect(await claimed('claim-order', { workerId: 'ext-1', max: 10 })).toEqual([]);
      expect(await t.statusOf(elsewhere)).toBe(JobStatus.PENDING);
      expect(await t.statusOf(later)).toBe(JobStatus.SCHEDULED);
    });

    it('takes one job when max is omitted, never more than CLAIM_BATCH_SIZE, and only the types asked for', async () => {
      for (let i = 0; i < 12; i++) await enqueue('EXT_A', 'claim-cap');
      const onlyB = await enqueue('EXT_B', 'claim-cap');
      expect(await claimed('claim-cap', { workerId: 'ext-1' })).toHaveLength(1);
      expect((await claimed('claim-cap', { workerId: 'ext-1', types: ['EXT_B'] })).map((j) => j.id)).toEqual([onlyB]);
      expect(await claimed('claim-cap', { workerId: 'ext-1', max: 1000 })).toHaveLength(10);
    });

    it('claims nothing from a paused queue, and its jobs once it is resumed', async () => {
      const id = await enqueue('EXT_A', 'claim-paused');
      await t.api().post('/queues/claim-paused/pause').expect(200);
      expect(await claimed('claim-paused', { workerId: 'ext-1', max: 5 })).toEqual([]);
      expect(await t.statusOf(id)).toBe(JobStatus.PENDING);
      await t.api().post('/queues/claim-paused/resume').expect(200);
      expect((await claimed('claim-paused', { workerId: 'ext-1', max: 5 })).map((j) => j.id)).toEqual([id]);
    });

    it('answers the jobs whose payloads fit in one answer, and hands the others back unrun, their attempt refunded', async () => {
      // 30 MB each: two fit in MAX_CLAIM_ANSWER_PAYLOAD_CHARS (64 MiB), three do not. Stored compressed (a few hundred
      // kB each), all three are within the claim's stored budget: the answer's own cut hands the third back.
      expect(MAX_CLAIM_ANSWER_PAYLOAD_CHARS).toBe(64 * 1024 * 1024);
      const blob = 'x'.repeat(30_000_000);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await t.jobs.enqueue('EXT_A', { blob }, { queue: 'claim-large' })).id);
      const dueAt = (await t.row(ids[2]))!.run_at;
      // A lease longer than the spec: the two held must not be rescued and claimed again below.
      const jobs = await claimed('claim-large', { workerId: 'ext-1', max: 3, leaseMs: 120_000 });
      expect(jobs.map((j) => j.id)).toEqual(ids.slice(0, 2));
      const back = await t.row(ids[2]);
      // In its place among the waiting jobs: run_at as it was.
      expect(back).toMatchObject({ status: 'PENDING', attempts: 0, lease_token: null, locked_by: null, run_at: dueAt });
      expect(back!.errors).toEqual([
        expect.objectContaining({ kind: 'handed-back', error: expect.stringContaining("filled the claim's answer") }),
      ]);
      // Counted as a hand-back, as at shutdown.
      expect(await metric('conveyor_jobs_handed_back_total', { queue: 'claim-large', type: 'EXT_A' })).toBe(1);
      // The next claim takes it, whole.
      const next = await claimed('claim-large', { workerId: 'ext-1', max: 3 });
      expect(next.map((j) => [j.id, (j.payload as { blob: string }).blob.length])).toEqual([[ids[2], blob.length]]);
    }, 60_000);

    it('reads no stored payload past what one answer carries: the jobs past it are not claimed, nor changed', async () => {
      // 25 MB of random base64 each, stored as is: two fit in MAX_CLAIM_PAYLOAD_BYTES (64 MiB), three do not.
      expect(MAX_CLAIM_PAYLOAD_BYTES).toBe(64 * 1024 * 1024);
      const blob = randomBytes(18_750_000).toString('base64');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await t.jobs.enqueue('EXT_A', { blob }, { queue: 'claim-stored' })).id);
      const before = await t.row(ids[2]);
      const jobs = await claimed('claim-stored', { workerId: 'ext-1', max: 3, leaseMs: 120_000 });
      expect(jobs.map((j) => j.id)).toEqual(ids.slice(0, 2));
      // The claim statement left it out: not claimed and handed back, but never claimed.
      expect(await t.row(ids[2])).toEqual(before);
      expect(before).toMatchObject({ status: 'PENDING', attempts: 0, lease_token: null, errors: [] });
      expect(await metric('conveyor_jobs_handed_back_total', { queue: 'claim-stored', type: 'EXT_A' })).toBe(0);
    }, 60_000);

    it('leaves external types to HTTP workers even when an in-process handler exists for them', async () => {
      const external = await enqueue('TEST_RECORD', 'mixed');
      // Submitted after it in the same queue: once the in-process worker has run this one, it has had its chance.
      const internal = (await t.jobs.enqueue('TEST_MAIL', { to: 'a@b.c', subject: 'x' }, { queue: 'mixed' })).id;
      await waitFor(async () => (await t.statusOf(internal)) === JobStatus.COMPLETED, {
        message: 'the in-process TEST_MAIL job to complete',
      });
      expect(await t.statusOf(external)).toBe(JobStatus.PENDING);
      expect(await t.invocations(external)).toBe(0);
      expect((await claimed('mixed', { workerId: 'ext-1', max: 5 })).map((j) => j.id)).toEqual([external]);
    });
  });

  describe('the lease token', () => {
    it('comes only with the claim: reading the RUNNING job shows no token, and the claimed one still reports the outcome', async () => {
      const id = await enqueue('EXT_A', 'token-once');
      const [job] = await claimed('token-once', { workerId: 'ext-1', leaseMs: 30_000 });
      expect(job.leaseToken).toMatch(/^[0-9a-f-]{36}$/);
      expect(await t.row(id)).toMatchObject({ status: 'RUNNING', lease_token: job.leaseToken });

      const one = await t.api().get(`/jobs/${id}`).expect(200);
      expect(one.body).toMatchObject({ id, status: 'RUNNING', lockedBy: 'ext-1' });
      const page = await t.api().get('/jobs').query({ queue: 'token-once' }).expect(200);
      expect(page.body.items.map((j: { id: string }) => j.id)).toEqual([id]);
      for (const [res, shown] of [
        [one, one.body],
        [page, page.body.items[0]],
      ] as const) {
        expect(Object.keys(shown)).not.toContain('leaseToken');
        expect(res.text).not.toContain(job.leaseToken);
      }

      await t.api().post(`/jobs/${id}/heartbeat`).send({ leaseToken: job.leaseToken }).expect(200);
      await t
        .api()
        .post(`/jobs/${id}/complete`)
        .send({ leaseToken: job.leaseToken, result: { ok: true } })
        .expect(200);
      expect(await t.row(id)).toMatchObject({ status: 'COMPLETED', result: { ok: true }, lease_token: null });
    });
  });

  describe('heartbeat', () => {
    it('extends locked_until from now by leaseMs', async () => {
      const id = await enqueue('EXT_A', 'beat');
      const [job] = await claimed('beat', { workerId: 'ext-1', leaseMs: 2_000 });
      const before = (await t.row(id))!.locked_until as Date;
      const res = await t.api().post(`/jobs/${id}/heartbeat`).send({ leaseToken: job.leaseToken, leaseMs: 60_000 }).expect(200);
      const after = (await t.row(id))!.locked_until as Date;
      expect(after.getTime()).toBeGreaterThan(before.getTime() + 50_000);
      expect(res.body).toEqual({ id, lockedUntil: after.toISOString() });
      expect(await t.row(id)).toMatchObject({ status: 'RUNNING', lease_token: job.leaseToken });
    });
  });

  describe('complete and fail', () => {
    it('complete: COMPLETED with the result, lease cleared, and counted in the metrics', async () => {
      const id = await enqueue('EXT_A', 'done');
      const [job] = await claimed('done', { workerId: 'ext-1' });
      // Keys a class-transformer round trip would drop reach storage as sent.
      const body = `{"leaseToken":"${job.leaseToken}","result":{"thumbnail":"s3://x/y.png","sizes":[1,2],"constructor":"kept","nested":{"__proto__":"kept too"}}}`;
      const res = await t.api().post(`/jobs/${id}/complete`).set('content-type', 'application/json').send(body).expect(200);
      expect(res.body).toEqual({ id, status: 'COMPLETED', retryInMs: null });
      const row = await t.row(id);
      expect(row).toMatchObject({ status: 'COMPLETED', locked_by: null, lease_token: null, locked_until: null, attempts: 1 });
      expect(row!.result).toEqual(JSON.parse(body).result);
      expect(Object.keys((row!.result as { nested: object }).nested)).toEqual(['__proto__']);
      expect(row!.finished_at).toBeInstanceOf(Date);
      expect(await metric('conveyor_jobs_completed_total', { queue: 'done', type: 'EXT_A' })).toBe(1);
      expect(await metric('conveyor_jobs_submitted_total', { queue: 'done', type: 'EXT_A' })).toBe(1);
    });

    it('fail: retried with backoff until maxAttempts, then DEAD, with the error history', async () => {
      const id = await enqueue('EXT_A', 'failing', { maxAttempts: 2 });
      const [first] = await claimed('failing', { workerId: 'ext-1' });
      const res = await t
        .api()
        .post(`/jobs/${id}/fail`)
        .send({
          leaseToken: first.leaseToken,
          error: 'upstream slow',
          errorName: 'TimeoutError',
          stack: 'TimeoutError: upstream slow\n    at worker.py:12',
        })
        .expect(200);
      expect(res.body).toMatchObject({ id, status: 'RETRYING' });
      expect(res.body.retryInMs).toBeGreaterThan(0);
      const retrying = await t.row(id);
      expect(retrying).toMatchObject({ status: 'RETRYING', attempts: 1, lease_token: null, last_error: 'TimeoutError: upstream slow' });
      expect(retrying!.errors).toEqual([
        expect.objectContaining({
          attempt: 1,
          kind: 'failed',
          worker: 'ext-1',
          error: 'TimeoutError: upstream slow',
          stack: expect.stringContaining('worker.py:12'),
        }),
      ]);
      expect((retrying!.run_at as Date).getTime()).toBeGreaterThan(Date.now());
      expect(await metric('conveyor_jobs_failed_total', { queue: 'failing', type: 'EXT_A' })).toBe(1);

      // Due again after its backoff; the second failure is the last attempt.
      const [second] = await waitFor(
        async () => {
          const jobs = await claimed('failing', { workerId: 'ext-2' });
          return jobs.length > 0 ? jobs : null;
        },
        { message: 'the failed job to be claimable again' },
      );
      expect(second).toMatchObject({ id, attempts: 2 });
      expect(
        (await t.api().post(`/jobs/${id}/fail`).send({ leaseToken: second.leaseToken, error: 'still slow' }).expect(200)).body,
      ).toEqual({
        id,
        status: 'DEAD',
        retryInMs: null,
      });
      const dead = await t.row(id);
      expect(dead).toMatchObject({ status: 'DEAD', attempts: 2, last_error: 'Error: still slow' });
      expect((dead!.errors as unknown[]).length).toBe(2);
      expect(dead!.finished_at).toBeInstanceOf(Date);
      expect(await metric('conveyor_jobs_dead_total', { queue: 'failing', type: 'EXT_A' })).toBe(1);
    });

    it('fail with retryAt: RETRYING at that time, the attempt refunded (like RetryLaterError)', async () => {
      const id = await enqueue('EXT_A', 'snoozing');
      const [job] = await claimed('snoozing', { workerId: 'ext-1' });
      const retryAt = new Date(Date.now() + 3_600_000);
      const res = await t
        .api()
        .post(`/jobs/${id}/fail`)
        .send({ leaseToken: job.leaseToken, error: 'rate limited', retryAt: retryAt.toISOString() })
        .expect(200);
      expect(res.body.status).toBe('RETRYING');
      const row = await t.row(id);
      expect(row).toMatchObject({ status: 'RETRYING', attempts: 0, snoozes: 1 });
      expect(Math.abs((row!.run_at as Date).getTime() - retryAt.getTime())).toBeLessThan(5_000);
      expect(row!.errors).toEqual([
        expect.objectContaining({ kind: 'retry-later', retryAt: retryAt.toISOString(), error: 'RetryLaterError: rate limited' }),
      ]);
    });

    it("fail with retryInMs: RETRYING that long from now by the service's clock, the attempt refunded", async () => {
      const id = await enqueue('EXT_A', 'snoozing-for');
      const [job] = await claimed('snoozing-for', { workerId: 'ext-1' });
      await t.api().post(`/jobs/${id}/fail`).send({ leaseToken: job.leaseToken, error: 'rate limited', retryInMs: 600_000 }).expect(200);
      const { rows } = await t.sql.query(
        `SELECT status, attempts, snoozes, (EXTRACT(EPOCH FROM run_at - now()) * 1000)::float8 AS due_in_ms FROM ${t.jobsTable} WHERE id = $1`,
        [id],
      );
      expect(rows[0]).toMatchObject({ status: 'RETRYING', attempts: 0, snoozes: 1 });
      expect(rows[0].due_in_ms).toBeGreaterThan(590_000);
      expect(rows[0].due_in_ms).toBeLessThanOrEqual(600_000);
    });

    it('fail with retryAt, retryInMs or permanent null: read as left out, as a worker that writes every field sends them', async () => {
      const failed = await enqueue('EXT_A', 'null-fields', { maxAttempts: 3 });
      const [first] = await claimed('null-fields', { workerId: 'ext-1' });
      await t
        .api()
        .post(`/jobs/${failed}/fail`)
        .send({ leaseToken: first.leaseToken, error: 'boom', retryAt: null, retryInMs: null, permanent: null })
        .expect(200);
      expect(await t.row(failed)).toMatchObject({ status: 'RETRYING', attempts: 1, snoozes: 0, last_error: 'Error: boom' });

      const snoozed = await enqueue('EXT_A', 'null-fields-later');
      const [second] = await claimed('null-fields-later', { workerId: 'ext-1' });
      const retryAt = new Date(Date.now() + 3_600_000).toISOString();
      await t
        .api()
        .post(`/jobs/${snoozed}/fail`)
        .send({ leaseToken: second.leaseToken, error: 'busy', retryAt, retryInMs: null, permanent: null })
        .expect(200);
      const row = await t.row(snoozed);
      expect(row).toMatchObject({ status: 'RETRYING', attempts: 0, snoozes: 1 });
      expect(Math.abs((row!.run_at as Date).getTime() - new Date(retryAt).getTime())).toBeLessThan(5_000);
    });

    it('hand-back: PENDING again at once for any worker, the attempt and snoozes untouched, the lease cleared', async () => {
      const id = await enqueue('EXT_A', 'handed');
      const [job] = await claimed('handed', { workerId: 'ext-stopping' });
      const res = await t.api().post(`/jobs/${id}/hand-back`).send({ leaseToken: job.leaseToken }).expect(200);
      expect(res.body).toEqual({ id, status: 'PENDING', retryInMs: null });
      const row = await t.row(id);
      expect(row).toMatchObject({ status: 'PENDING', attempts: 0, snoozes: 0, lease_token: null, locked_by: null });
      expect((row!.run_at as Date).getTime()).toBeLessThanOrEqual(Date.now());
      expect(row!.errors).toEqual([expect.objectContaining({ kind: 'handed-back', worker: 'ext-stopping', attempt: 1 })]);
      const [again] = await claimed('handed', { workerId: 'ext-other' });
      expect(again).toMatchObject({ id, attempts: 1 });
    });

    it('fail with permanent: DEAD at once', async () => {
      const id = await enqueue('EXT_A', 'hopeless', { maxAttempts: 5 });
      const [job] = await claimed('hopeless', { workerId: 'ext-1' });
      await t.api().post(`/jobs/${id}/fail`).send({ leaseToken: job.leaseToken, error: 'no such file', permanent: true }).expect(200);
      expect(await t.row(id)).toMatchObject({ status: 'DEAD', attempts: 1, last_error: 'PermanentJobError: no such file' });
    });
  });

  describe('progress', () => {
    it("stores the worker's data exactly as sent, its __proto__ and constructor keys included, at any depth", async () => {
      const id = await enqueue('EXT_A', 'progress-keys');
      const [job] = await claimed('progress-keys', { workerId: 'ext-1' });
      const data = '{"__proto__":{"step":1},"constructor":"c","nested":{"__proto__":{"x":[1]},"prototype":2}}';
      const res = await t
        .api()
        .post(`/jobs/${id}/progress`)
        .set('Content-Type', 'application/json')
        .send(`{"leaseToken":"${job.leaseToken}","percent":50,"data":${data}}`)
        .expect(200);
      const expected = { percent: 50, data: JSON.parse(data) as unknown };
      expect(res.body).toEqual(expected);
      const { rows } = await t.sql.query<{ progress: string }>(`SELECT progress::text FROM ${t.jobsTable} WHERE id = $1`, [id]);
      expect(JSON.parse(rows[0].progress)).toEqual(expected);
      expect(JSON.parse(rows[0].progress).data).toHaveProperty(['nested', '__proto__', 'x'], [1]);
    });
  });

  describe('fencing: a token that does not hold the job is a 409 and changes nothing', () => {
    it('refuses the reports of a worker whose lease expired, after the job was rescued and claimed again', async () => {
      const id = await enqueue('EXT_A', 'fenced', { maxAttempts: 5 });
      const [stale] = await claimed('fenced', { workerId: 'ext-slow', leaseMs: 1_000 });
      await waitFor(async () => ((await t.row(id))!.errors as Array<{ kind: string }>).some((e) => e.kind === 'lease-expired'), {
        message: 'the sweeper to rescue the expired lease',
      });
      const [fresh] = await claimed('fenced', { workerId: 'ext-fresh', leaseMs: 30_000 });
      expect(fresh).toMatchObject({ id, attempts: 2 });
      expect(fresh.leaseToken).not.toBe(stale.leaseToken);

      const staleBefore = await metric('conveyor_stale_writes_total', {});
      const held = fenced(await t.row(id));
      for (const [route, body] of [
        ['heartbeat', { leaseToken: stale.leaseToken }],
        ['complete', { leaseToken: stale.leaseToken, result: { late: true } }],
        ['fail', { leaseToken: stale.leaseToken, error: 'late' }],
        ['hand-back', { leaseToken: stale.leaseToken }],
      ] as const) {
        const res = await t.api().post(`/jobs/${id}/${route}`).send(body);
        expectErrorBody(res, 409);
        expect(fenced(await t.row(id))).toEqual(held);
      }
      expect(await metric('conveyor_stale_writes_total', {})).toBe(staleBefore + 4);

      await t.api().post(`/jobs/${id}/complete`).send({ leaseToken: fresh.leaseToken, result: 'fresh' }).expect(200);
      expect(await t.row(id)).toMatchObject({ status: 'COMPLETED', result: 'fresh', locked_by: null });
      // Reporting twice is refused too: the token no longer holds anything.
      expectErrorBody(await t.api().post(`/jobs/${id}/complete`).send({ leaseToken: fresh.leaseToken, result: 'again' }), 409);
      expect(await t.row(id)).toMatchObject({ status: 'COMPLETED', result: 'fresh' });
    });

    it('refuses a token of another claim, and a job that is not running', async () => {
      const id = await enqueue('EXT_A', 'wrong-token');
      const before = fenced(await t.row(id));
      expectErrorBody(await t.api().post(`/jobs/${id}/complete`).send({ leaseToken: randomUUID() }), 409);
      expect(fenced(await t.row(id))).toEqual(before);
      await claimed('wrong-token', { workerId: 'ext-1' });
      const running = fenced(await t.row(id));
      expectErrorBody(await t.api().post(`/jobs/${id}/fail`).send({ leaseToken: randomUUID(), error: 'x' }), 409);
      expectErrorBody(await t.api().post(`/jobs/${id}/heartbeat`).send({ leaseToken: randomUUID() }), 409);
      expect(fenced(await t.row(id))).toEqual(running);
    });

    it('answers 404 for a job that does not exist', async () => {
      const bodies = { heartbeat: {}, complete: { result: 1 }, fail: { error: 'x' } };
      for (const [route, body] of Object.entries(bodies)) {
        expectErrorBody(
          await t
            .api()
            .post(`/jobs/${randomUUID()}/${route}`)
            .send({ leaseToken: randomUUID(), ...body }),
          404,
        );
      }
    });
  });

  describe('bad input is a 400 naming the field', () => {
    const id = randomUUID();
    const token = randomUUID();
    const cases: Array<[string, string, unknown, string[]]> = [
      ['claim without workerId', '/queues/q/claim', { max: 1 }, ['workerId']],
      ['claim with max 0', '/queues/q/claim', { workerId: 'w', max: 0 }, ['max']],
      ['claim with a fractional max', '/queues/q/claim', { workerId: 'w', max: 1.5 }, ['max']],
      ['claim with a tiny lease', '/queues/q/claim', { workerId: 'w', leaseMs: 10 }, ['leaseMs']],
      ['claim with an unknown field', '/queues/q/claim', { workerId: 'w', queue: 'q' }, ['queue']],
      ['claim of a type that is not external', '/queues/q/claim', { workerId: 'w', types: ['TEST_MAIL'] }, ['types']],
      ['claim with a NUL in workerId', '/queues/q/claim', { workerId: 'w\u0000' }, ['workerId']],
      ['claim from a malformed queue name', '/queues/bad%20queue!/claim', { workerId: 'w' }, ['queue']],
      ['heartbeat with a malformed token', `/jobs/${id}/heartbeat`, { leaseToken: 'nope' }, ['leaseToken']],
      ['heartbeat of a malformed id', '/jobs/42/heartbeat', { leaseToken: token }, ['id']],
      ['complete without a token', `/jobs/${id}/complete`, { result: 1 }, ['leaseToken']],
      ['complete with an unknown field', `/jobs/${id}/complete`, { leaseToken: token, status: 'COMPLETED' }, ['status']],
      [
        'complete with a result PostgreSQL cannot store',
        `/jobs/${id}/complete`,
        { leaseToken: token, result: { a: 'x\u0000' } },
        ['result.a'],
      ],
      ['complete with an array body', `/jobs/${id}/complete`, [token], ['body']],
      ['claim with a lone surrogate in workerId', '/queues/q/claim', { workerId: 'w\ud800' }, ['workerId']],
      ['progress with an unknown field', `/jobs/${id}/progress`, { leaseToken: token, percent: 5, step: 'x' }, ['step']],
      ['progress with a malformed token', `/jobs/${id}/progress`, { leaseToken: 'nope', percent: 5 }, ['leaseToken']],
      ['progress with a percent as text', `/jobs/${id}/progress`, { leaseToken: token, percent: '5' }, ['percent']],
      ['progress with data not an object', `/jobs/${id}/progress`, { leaseToken: token, data: [1] }, ['data']],
      ['progress with an array body', `/jobs/${id}/progress`, [token], ['body']],
      ['fail without an error', `/jobs/${id}/fail`, { leaseToken: token }, ['error']],
      [
        'fail with a retryAt that is not a date-time',
        `/jobs/${id}/fail`,
        { leaseToken: token, error: 'x', retryAt: 'tomorrow' },
        ['retryAt'],
      ],
      [
        'fail with an impossible retryAt',
        `/jobs/${id}/fail`,
        { leaseToken: token, error: 'x', retryAt: '2030-02-31T25:00:00Z' },
        ['retryAt'],
      ],
      // Date reads these as other instants (2 March, the next day, year 0000) or writes them as PostgreSQL cannot.
      ...[
        ['on a day the month lacks', '2030-02-30T10:00:00Z'],
        ['at 24:00', '2030-01-01T24:00:00Z'],
        ['in year 0000', '0000-01-01T00:00:00Z'],
        ['past year 9999 in UTC', '9999-12-31T23:59:59-12:00'],
      ].map(([when, retryAt]): [string, string, unknown, string[]] => [
        `fail with a retryAt ${when}`,
        `/jobs/${id}/fail`,
        { leaseToken: token, error: 'x', retryAt },
        ['retryAt'],
      ]),
      [
        'fail with both retryAt and permanent',
        `/jobs/${id}/fail`,
        { leaseToken: token, error: 'x', retryAt: '2030-01-01T00:00:00Z', permanent: true },
        ['retryAt'],
      ],
      [
        'fail with both retryInMs and retryAt',
        `/jobs/${id}/fail`,
        { leaseToken: token, error: 'x', retryAt: '2030-01-01T00:00:00Z', retryInMs: 1000 },
        ['retryAt'],
      ],
      [
        'fail with retryInMs past a year',
        `/jobs/${id}/fail`,
        { leaseToken: token, error: 'x', retryInMs: 367 * 86_400_000 },
        ['retryInMs'],
      ],
      ['fail with a negative retryInMs', `/jobs/${id}/fail`, { leaseToken: token, error: 'x', retryInMs: -1 }, ['retryInMs']],
      ['fail with permanent not a boolean', `/jobs/${id}/fail`, { leaseToken: token, error: 'x', permanent: 'yes' }, ['permanent']],
    ];
    it.each(cases)('%s', async (_name, path, body, fields) => {
      expectErrorBody(
        await t
          .api()
          .post(path)
          .send(body as object),
        400,
        fields,
      );
    });
  });
});
