import { JobStatus } from '@conveyor/core';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

const MAX_BATCH = 5;

/** `POST /jobs/batch`: all or nothing, answers in request order, at most maxBatchSize jobs. */
describe('POST /jobs/batch', () => {
  let t: RestTestApp;
  const mail = (to: string) => ({ to, subject: 'Batch' });

  beforeAll(async () => {
    t = await createRestTestApp('http_batch', { engine: { runWorkers: false, maxBatchSize: MAX_BATCH } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('201 with every job, in request order, each stored as given', async () => {
    const runAt = new Date(Date.now() + 3_600_000).toISOString();
    const jobs = [
      { type: 'TEST_MAIL', payload: mail('a@example.com') },
      { type: 'TEST_RECORD', payload: { n: 2 }, priority: 7, queue: 'batch-q' },
      { type: 'TEST_MAIL', payload: mail('c@example.com'), runAt },
      { type: 'TEST_RECORD', payload: { n: 4 }, idempotencyKey: 'batch-key-4' },
      { type: 'TEST_RECORD', payload: { n: 5 }, delayMs: 60_000, maxAttempts: 1 },
    ];
    const res = await t.api().post('/jobs/batch').send({ jobs }).expect(201);
    expect(Object.keys(res.body)).toEqual(['jobs']);
    expect(res.body.jobs.map((j: { payload: unknown }) => j.payload)).toEqual(jobs.map((j) => j.payload));
    expect(res.body.jobs.map((j: { status: string }) => j.status)).toEqual([
      JobStatus.PENDING,
      JobStatus.PENDING,
      JobStatus.SCHEDULED,
      JobStatus.PENDING,
      JobStatus.SCHEDULED,
    ]);
    expect(res.body.jobs[1]).toMatchObject({ priority: 7, queue: 'batch-q' });
    expect(res.body.jobs[2]).toMatchObject({ queue: 'mail', runAt });
    expect(res.body.jobs[3]).toMatchObject({ idempotencyKey: 'batch-key-4' });
    expect(res.body.jobs[4]).toMatchObject({ maxAttempts: 1 });

    const ids = res.body.jobs.map((j: { id: string }) => j.id);
    const rows = await t.rows('id = ANY($1::uuid[])', [ids]);
    // Stored in request order too (seq follows the request).
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows.map((r) => r.status)).toEqual(res.body.jobs.map((j: { status: string }) => j.status));
    expect(rows[1]).toMatchObject({ priority: 7, queue: 'batch-q', type: 'TEST_RECORD' });
  });

  it('a batch of one kind of job (only ids and payloads differ) is stored and answered as given', async () => {
    const runAt = new Date(Date.now() + 7_200_000).toISOString();
    const payloads = [{ n: 1 }, { text: 'quotes " and \\ and ünïcödé' }, { nested: { list: [1, null, true] } }];
    const batches = [
      { shared: { type: 'TEST_RECORD', queue: 'shared-q', priority: 3, delayMs: 60_000, maxAttempts: 2 }, status: JobStatus.SCHEDULED },
      { shared: { type: 'TEST_RECORD', runAt }, status: JobStatus.SCHEDULED },
      { shared: { type: 'TEST_MAIL' }, status: JobStatus.PENDING },
    ];
    for (const { shared, status } of batches) {
      const jobs = payloads.map((payload) => ({
        ...shared,
        payload: shared.type === 'TEST_MAIL' ? mail(`${payload.n ?? 0}@example.com`) : payload,
      }));
      const res = await t.api().post('/jobs/batch').send({ jobs }).expect(201);
      const answered = res.body.jobs as Array<Record<string, unknown>>;
      const rows = await t.rows('id = ANY($1::uuid[])', [answered.map((j) => j.id)]);
      expect(rows.map((r) => r.id)).toEqual(answered.map((j) => j.id));
      expect(rows.map((r) => r.payload)).toEqual(jobs.map((j) => j.payload));
      for (const [i, row] of rows.entries()) {
        expect(row).toMatchObject({ type: shared.type, status, priority: shared.priority ?? 0 });
        expect(row.queue).toBe(shared.queue ?? (shared.type === 'TEST_MAIL' ? 'mail' : 'default'));
        expect(row.max_attempts).toBe(answered[i].maxAttempts);
        expect((row.run_at as Date).toISOString()).toBe(answered[i].runAt);
        expect(answered[i]).toMatchObject({ status, seq: String(row.seq) });
      }
      if (shared.runAt) expect(answered.every((j) => j.runAt === runAt)).toBe(true);
      if (shared.maxAttempts) expect(rows.every((r) => r.max_attempts === shared.maxAttempts)).toBe(true);
    }
  });

  it('accepts exactly maxBatchSize jobs', async () => {
    const jobs = Array.from({ length: MAX_BATCH }, (_, i) => ({ type: 'TEST_RECORD', payload: { at: i } }));
    const res = await t.api().post('/jobs/batch').send({ jobs }).expect(201);
    expect(res.body.jobs).toHaveLength(MAX_BATCH);
    expect(await t.rows('id = ANY($1::uuid[])', [res.body.jobs.map((j: { id: string }) => j.id)])).toHaveLength(MAX_BATCH);
  });

  describe('400 and not a single row inserted', () => {
    const valid = { type: 'TEST_RECORD', payload: {} };
    const cases: Array<[string, unknown, string[]]> = [
      [
        'one invalid payload field',
        { jobs: [valid, valid, { type: 'TEST_MAIL', payload: { to: 'x', subject: 'y' } }, valid] },
        ['jobs[2].payload.to'],
      ],
      ['an unknown type', { jobs: [valid, { type: 'NOPE', payload: {} }] }, ['jobs[1].type']],
      ['an unknown field in one job', { jobs: [{ ...valid, colour: 'red' }] }, ['jobs[0].colour']],
      [
        'a bad priority and a bad runAt in two jobs',
        { jobs: [{ ...valid, priority: 'x' }, valid, { ...valid, runAt: 'never' }] },
        ['jobs[0].priority', 'jobs[2].runAt'],
      ],
      ['a job that is not an object', { jobs: [valid, 'TEST_RECORD'] }, ['jobs[1]']],
      ['more than maxBatchSize jobs', { jobs: Array.from({ length: MAX_BATCH + 1 }, () => valid) }, ['jobs']],
      ['no jobs', { jobs: [] }, ['jobs']],
      ['jobs not an array', { jobs: valid }, ['jobs']],
      ['missing jobs', { items: [valid] }, ['jobs']],
      ['an extra top-level field', { jobs: [valid], atomic: true }, ['atomic']],
      ['a JSON array instead of { jobs }', [valid], ['jobs']],
    ];

    it.each(cases)('%s', async (_name, body, fields) => {
      const before = (await t.rows()).length;
      const res = await t.api().post('/jobs/batch').set('content-type', 'application/json').send(JSON.stringify(body));
      expectErrorBody(res, 400, fields);
      expect((await t.rows()).length).toBe(before);
    });
  });

  it('an Idempotency-Key header is a 400 naming it, not a key silently ignored, and nothing is stored', async () => {
    const before = (await t.rows()).length;
    const body = { jobs: [{ type: 'TEST_RECORD', payload: {} }] };
    const res = await t.api().post('/jobs/batch').set('Idempotency-Key', 'batch-1').send(body);
    expectErrorBody(res, 400, ['Idempotency-Key']);
    expect((await t.rows()).length).toBe(before);
  });

  it('a key already used with the same request answers with that job; the rest are created', async () => {
    const existing = await t
      .api()
      .post('/jobs')
      .send({ type: 'TEST_RECORD', payload: { v: 1 }, idempotencyKey: 'seen-before' })
      .expect(201);
    const res = await t
      .api()
      .post('/jobs/batch')
      .send({
        jobs: [
          { type: 'TEST_RECORD', payload: { fresh: true } },
          { type: 'TEST_RECORD', payload: { v: 1 }, idempotencyKey: 'seen-before' },
        ],
      })
      .expect(201);
    expect(res.body.jobs[1].id).toBe(existing.body.id);
    expect(res.body.jobs[0].id).not.toBe(existing.body.id);
    expect(await t.rows("idempotency_key = 'seen-before'")).toHaveLength(1);
    expect(await t.row(res.body.jobs[0].id)).toMatchObject({ payload: { fresh: true } });
  });

  it('a key already used with another request is a 409, and nothing of the batch is inserted', async () => {
    await t
      .api()
      .post('/jobs')
      .send({ type: 'TEST_RECORD', payload: { v: 1 }, idempotencyKey: 'taken' })
      .expect(201);
    const before = (await t.rows()).length;
    const res = await t
      .api()
      .post('/jobs/batch')
      .send({
        jobs: [
          { type: 'TEST_RECORD', payload: { innocent: true } },
          { type: 'TEST_RECORD', payload: { v: 2 }, idempotencyKey: 'taken' },
        ],
      });
    expectErrorBody(res, 409);
    expect((await t.rows()).length).toBe(before);
    expect(await t.rows(`payload @> '{"innocent": true}'`)).toHaveLength(0);
  });

  it('one key twice in a batch: the same request gives one job for both; different requests a 409 and nothing stored', async () => {
    const twice = { type: 'TEST_RECORD', payload: { twin: true }, idempotencyKey: 'twin' };
    const same = await t
      .api()
      .post('/jobs/batch')
      .send({ jobs: [twice, twice] })
      .expect(201);
    expect(same.body.jobs[0].id).toBe(same.body.jobs[1].id);
    expect(await t.rows("idempotency_key = 'twin'")).toHaveLength(1);

    const before = (await t.rows()).length;
    const clash = { type: 'TEST_RECORD', payload: { twin: 'a' }, idempotencyKey: 'twin-2' };
    const res = await t
      .api()
      .post('/jobs/batch')
      .send({ jobs: [clash, { ...clash, payload: { twin: 'b' } }] });
    expectErrorBody(res, 409);
    expect((await t.rows()).length).toBe(before);
  });
});
