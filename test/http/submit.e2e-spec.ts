import { JobStatus } from '@conveyor/core';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/** `POST /jobs`: what is stored for a valid submission, and a 400 naming the field for every invalid one. */
describe('POST /jobs', () => {
  let t: RestTestApp;
  const mail = { to: 'ada@example.com', subject: 'Hello' };

  // No workers: a submitted job stays exactly as the API stored it.
  beforeAll(async () => {
    t = await createRestTestApp('http_submit', { engine: { runWorkers: false } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('201 with the stored job; defaults come from the handler and the engine', async () => {
    const res = await t.api().post('/jobs').send({ type: 'TEST_MAIL', payload: mail }).expect(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({
      type: 'TEST_MAIL',
      payload: mail,
      queue: 'mail',
      status: JobStatus.PENDING,
      priority: 0,
      attempts: 0,
      maxAttempts: 4,
      snoozes: 0,
      errors: [],
      result: null,
      lastError: null,
      idempotencyKey: null,
      lockedBy: null,
    });
    expect(res.body).not.toHaveProperty('idempotencyHash');

    const row = await t.row(res.body.id);
    expect(row).toMatchObject({
      type: 'TEST_MAIL',
      payload: mail,
      queue: 'mail',
      status: 'PENDING',
      priority: 0,
      max_attempts: 4,
      attempts: 0,
    });
    expect(String(row!.seq)).toBe(res.body.seq);
    expect(new Date(res.body.runAt).getTime()).toBe((row!.run_at as Date).getTime());
    expect(new Date(res.body.createdAt).getTime()).toBe((row!.created_at as Date).getTime());
  });

  it('stores the queue, priority and maxAttempts the submission gives', async () => {
    const res = await t
      .api()
      .post('/jobs')
      .send({ type: 'TEST_RECORD', payload: { n: 1 }, queue: 'reports.v2', priority: -5, maxAttempts: 9 })
      .expect(201);
    expect(res.body).toMatchObject({ queue: 'reports.v2', priority: -5, maxAttempts: 9, status: JobStatus.PENDING });
    expect(await t.row(res.body.id)).toMatchObject({ queue: 'reports.v2', priority: -5, max_attempts: 9, payload: { n: 1 } });
  });

  it('runAt in the future or delayMs > 0 is SCHEDULED at that time; a past runAt is PENDING', async () => {
    const runAt = new Date(Date.now() + 3_600_000).toISOString();
    const future = await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {}, runAt }).expect(201);
    expect(future.body).toMatchObject({ status: JobStatus.SCHEDULED, runAt });
    expect(await t.row(future.body.id)).toMatchObject({ status: 'SCHEDULED', run_at: new Date(runAt) });

    const delayed = await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {}, delayMs: 60_000 }).expect(201);
    expect(delayed.body.status).toBe(JobStatus.SCHEDULED);
    // delayMs is applied with the database clock: run_at = created_at + delay (both set by one statement).
    const { rows } = await t.sql.query(`SELECT status, run_at - created_at AS delay FROM ${t.jobsTable} WHERE id = $1`, [delayed.body.id]);
    expect(rows[0].status).toBe('SCHEDULED');
    expect(rows[0].delay).toMatchObject({ minutes: 1 });

    const past = await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {}, runAt: '2020-01-01T00:00:00Z' }).expect(201);
    expect(past.body).toMatchObject({ status: JobStatus.PENDING, runAt: '2020-01-01T00:00:00.000Z' });
    expect(await t.statusOf(past.body.id)).toBe(JobStatus.PENDING);

    const now = await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {}, delayMs: 0 }).expect(201);
    expect(now.body.status).toBe(JobStatus.PENDING);
  });

  it('accepts any JSON payload for a type without a payload class', async () => {
    for (const payload of [[1, 'two', { three: 3 }], 'text', 42, false, { nested: { deep: [null] } }]) {
      const res = await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload }).expect(201);
      expect((await t.row(res.body.id))!.payload).toEqual(payload);
    }
  });

  describe('400 naming the field, and nothing stored', () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const cases: Array<[string, unknown, string[]]> = [
      ['unknown type', { type: 'NO_SUCH_TYPE', payload: {} }, ['type']],
      ['missing type', { payload: {} }, ['type']],
      ['empty type', { type: '', payload: {} }, ['type']],
      ['type not a string', { type: 7, payload: {} }, ['type']],
      ['missing payload', { type: 'TEST_RECORD' }, ['payload']],
      ['null payload', { type: 'TEST_RECORD', payload: null }, ['payload']],
      ['invalid payload field', { type: 'TEST_MAIL', payload: { to: 'not-an-email', subject: 'Hi' } }, ['payload.to']],
      ['missing payload field', { type: 'TEST_MAIL', payload: { to: 'ada@example.com' } }, ['payload.subject']],
      [
        'two invalid payload fields',
        { type: 'TEST_MAIL', payload: { to: 1, subject: '', copies: 0 } },
        ['payload.to', 'payload.subject', 'payload.copies'],
      ],
      [
        'unknown payload field',
        { type: 'TEST_MAIL', payload: { ...{ to: 'a@b.c', subject: 'x' }, bcc: 'eve@example.com' } },
        ['payload.bcc'],
      ],
      ['payload not an object', { type: 'TEST_MAIL', payload: ['a@b.c'] }, ['payload']],
      [
        'payload with a __proto__ key',
        { type: 'TEST_MAIL', payload: JSON.parse('{"to":"a@b.c","subject":"x","__proto__":{"admin":true}}') },
        ['payload.__proto__'],
      ],
      ['priority not an integer', { type: 'TEST_RECORD', payload: {}, priority: 1.5 }, ['priority']],
      ['priority as a string', { type: 'TEST_RECORD', payload: {}, priority: '1' }, ['priority']],
      ['priority out of range', { type: 'TEST_RECORD', payload: {}, priority: 10_000_000 }, ['priority']],
      ['runAt not a date', { type: 'TEST_RECORD', payload: {}, runAt: 'tomorrow' }, ['runAt']],
      ['runAt an impossible date', { type: 'TEST_RECORD', payload: {}, runAt: '2030-02-30T00:00:00Z' }, ['runAt']],
      ['runAt in year 0, which PostgreSQL has not', { type: 'TEST_RECORD', payload: {}, runAt: '0000-01-01' }, ['runAt']],
      ['runAt at hour 24', { type: 'TEST_RECORD', payload: {}, runAt: '2030-01-01T24:00:00Z' }, ['runAt']],
      ['runAt as a number', { type: 'TEST_RECORD', payload: {}, runAt: Date.now() }, ['runAt']],
      ['runAt as an ISO week date', { type: 'TEST_RECORD', payload: {}, runAt: '2030-W05-3' }, ['runAt']],
      ['runAt as an ISO ordinal date', { type: 'TEST_RECORD', payload: {}, runAt: '2030-010' }, ['runAt']],
      ['runAt in basic format', { type: 'TEST_RECORD', payload: {}, runAt: '20300101T000000Z' }, ['runAt']],
      ['runAt with a signed year', { type: 'TEST_RECORD', payload: {}, runAt: '+2030-01-01T00:00:00Z' }, ['runAt']],
      ['runAt and delayMs together', { type: 'TEST_RECORD', payload: {}, runAt: future, delayMs: 1000 }, ['delayMs']],
      ['negative delayMs', { type: 'TEST_RECORD', payload: {}, delayMs: -1 }, ['delayMs']],
      ['maxAttempts 0', { type: 'TEST_RECORD', payload: {}, maxAttempts: 0 }, ['maxAttempts']],
      ['queue with a space', { type: 'TEST_RECORD', payload: {}, queue: 'two words' }, ['queue']],
      ['empty idempotency key', { type: 'TEST_RECORD', payload: {}, idempotencyKey: '' }, ['idempotencyKey']],
      ['idempotency key too long', { type: 'TEST_RECORD', payload: {}, idempotencyKey: 'k'.repeat(256) }, ['idempotencyKey']],
      ['unknown top-level field', { type: 'TEST_RECORD', payload: {}, retries: 3 }, ['retries']],
      [
        'several problems at once',
        { type: 'TEST_RECORD', payload: {}, priority: 'high', runAt: 'soon', extra: 1 },
        ['priority', 'runAt', 'extra'],
      ],
      ['a JSON array', [{ type: 'TEST_RECORD', payload: {} }], ['body']],
      ['a JSON string', 'TEST_RECORD', ['body']],
      ['JSON null', null, ['body']],
    ];

    it.each(cases)('%s', async (_name, body, fields) => {
      const before = (await t.rows()).length;
      const res = await t.api().post('/jobs').set('content-type', 'application/json').send(JSON.stringify(body));
      expectErrorBody(res, 400, fields);
      expect((await t.rows()).length).toBe(before);
    });
  });

  it('400 naming payload for a string jsonb cannot store', async () => {
    const res = await t
      .api()
      .post('/jobs')
      .send({ type: 'TEST_RECORD', payload: { note: 'a\u0000b' } });
    expectErrorBody(res, 400, ['payload.note']);
  });

  it('415 naming content-type when the body is not JSON at all (no JSON content type)', async () => {
    const res = await t.api().post('/jobs').set('content-type', 'text/plain').send('type=TEST_RECORD');
    expectErrorBody(res, 415, ['content-type']);
  });

  it('answers an unknown route with the same error shape', async () => {
    expectErrorBody(await t.api().get('/nowhere'), 404);
    expectErrorBody(await t.api().delete('/jobs'), 404);
  });
});
