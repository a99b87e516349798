import { JobStatus } from '@conveyor/core';
import { expectErrorBody } from './support/error-body.assertions';
import { postJsonOnNewConnection } from './support/raw-http';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/**
 * Idempotency keys on `POST /jobs`: the first submission with a key creates the job (201), a repeat of the
 * same request answers with that job (200), another request under the key is a 409. Concurrent
 * submissions with one key create one job.
 */
describe('POST /jobs with an idempotency key', () => {
  let t: RestTestApp;
  const mail = { to: 'ada@example.com', subject: 'Invoice 42' };
  const withKey = (key: string) => t.rows('idempotency_key = $1', [key]);

  beforeAll(async () => {
    t = await createRestTestApp('http_idem', { engine: { runWorkers: false } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('201 the first time, 200 with the same job for the same request (body key)', async () => {
    const body = { type: 'TEST_MAIL', payload: mail, priority: 3, idempotencyKey: 'invoice-42' };
    const first = await t.api().post('/jobs').send(body).expect(201);
    expect(first.body.idempotencyKey).toBe('invoice-42');
    const again = await t.api().post('/jobs').send(body).expect(200);
    expect(again.body).toEqual(first.body);
    // Payload keys in another order are the same request.
    const reordered = { idempotencyKey: 'invoice-42', priority: 3, payload: { subject: mail.subject, to: mail.to }, type: 'TEST_MAIL' };
    expect((await t.api().post('/jobs').send(reordered).expect(200)).body.id).toBe(first.body.id);

    const rows = await withKey('invoice-42');
    expect(rows.map((r) => r.id)).toEqual([first.body.id]);
    expect(rows[0]).toMatchObject({ status: 'PENDING', priority: 3, payload: mail });
  });

  it('takes the key from the Idempotency-Key header too, interchangeably with the body field', async () => {
    const body = { type: 'TEST_RECORD', payload: { n: 1 } };
    const first = await t.api().post('/jobs').set('Idempotency-Key', 'hdr-1').send(body).expect(201);
    expect(first.body.idempotencyKey).toBe('hdr-1');
    expect((await t.api().post('/jobs').set('Idempotency-Key', 'hdr-1').send(body).expect(200)).body.id).toBe(first.body.id);
    expect(
      (
        await t
          .api()
          .post('/jobs')
          .send({ ...body, idempotencyKey: 'hdr-1' })
          .expect(200)
      ).body.id,
    ).toBe(first.body.id);
    // The same key in both places is fine.
    const both = await t
      .api()
      .post('/jobs')
      .set('Idempotency-Key', 'hdr-1')
      .send({ ...body, idempotencyKey: 'hdr-1' })
      .expect(200);
    expect(both.body.id).toBe(first.body.id);
    expect(await withKey('hdr-1')).toHaveLength(1);
  });

  it('400 naming idempotencyKey when the header and the body disagree; nothing stored', async () => {
    const res = await t
      .api()
      .post('/jobs')
      .set('Idempotency-Key', 'hdr-a')
      .send({ type: 'TEST_RECORD', payload: {}, idempotencyKey: 'body-a' });
    expectErrorBody(res, 400, ['idempotencyKey']);
    expect(await t.rows("idempotency_key IN ('hdr-a', 'body-a')")).toHaveLength(0);
  });

  it('400 naming idempotencyKey for an empty Idempotency-Key header', async () => {
    const res = await t.api().post('/jobs').set('Idempotency-Key', '').send({ type: 'TEST_RECORD', payload: {} });
    expectErrorBody(res, 400, ['idempotencyKey']);
  });

  it('400 naming idempotencyKey for an Idempotency-Key header outside printable ASCII; the same key in the body is taken', async () => {
    // What Node reads of "café" sent as UTF-8 bytes in a header: one character per byte.
    const utf8Bytes = Buffer.from('café-1', 'utf8').toString('latin1');
    const res = await t.api().post('/jobs').set('Idempotency-Key', utf8Bytes).send({ type: 'TEST_RECORD', payload: {} });
    expectErrorBody(res, 400, ['idempotencyKey']);
    expect(await t.rows('idempotency_key = ANY($1)', [[utf8Bytes, 'café-1']])).toHaveLength(0);
    const inBody = await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {}, idempotencyKey: 'café-1' }).expect(201);
    expect(inBody.body.idempotencyKey).toBe('café-1');
  });

  it('409 when the key was used for a different request, and the stored job is unchanged', async () => {
    const body = { type: 'TEST_MAIL', payload: mail, idempotencyKey: 'welcome-7' };
    const first = await t.api().post('/jobs').send(body).expect(201);
    const stored = await t.row(first.body.id);

    const different: Array<Record<string, unknown>> = [
      { ...body, payload: { ...mail, subject: 'Another subject' } },
      { ...body, priority: 1 },
      { ...body, queue: 'elsewhere' },
      { ...body, maxAttempts: 2 },
      { ...body, delayMs: 5000 },
      { ...body, type: 'TEST_RECORD' },
    ];
    for (const other of different) {
      const res = await t.api().post('/jobs').send(other);
      expectErrorBody(res, 409);
      expect(res.body.message).toContain('welcome-7');
    }
    const rows = await withKey('welcome-7');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual(stored);
  });

  it('a repeat of a request that is still invalid is a 400, not a 200', async () => {
    await t.api().post('/jobs').send({ type: 'TEST_MAIL', payload: mail, idempotencyKey: 'valid-once' }).expect(201);
    const res = await t
      .api()
      .post('/jobs')
      .send({ type: 'TEST_MAIL', payload: { ...mail, to: 'nope' }, idempotencyKey: 'valid-once' });
    expectErrorBody(res, 400, ['payload.to']);
  });

  it('the key outlives state changes: a repeat after a cancel answers the same, now cancelled, job', async () => {
    const first = await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {}, idempotencyKey: 'later-1' }).expect(201);
    await t.api().post(`/jobs/${first.body.id}/cancel`).expect(200);
    const again = await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {}, idempotencyKey: 'later-1' }).expect(200);
    expect(again.body).toMatchObject({ id: first.body.id, status: JobStatus.CANCELLED });
  });

  it('20 concurrent submissions with one key create one job: one 201, nineteen 200, one id', async () => {
    const body = { type: 'TEST_MAIL', payload: mail, idempotencyKey: 'burst-20' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.api().post('/jobs').send(body)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(19).fill(200), 201]);
    expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);

    const rows = await withKey('burst-20');
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe(answers[0].body.id);
  });

  it('50 concurrent submissions over 50 separate connections create one job', async () => {
    const body = { type: 'TEST_RECORD', payload: { report: 'monthly' } };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => postJsonOnNewConnection(t.baseUrl, '/jobs', body, { 'Idempotency-Key': 'burst-50' })),
    );
    expect(new Set(answers.map((a) => a.localPort)).size).toBe(50);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(49);
    const ids = new Set(answers.map((a) => (a.body as { id: string }).id));
    expect(ids.size).toBe(1);

    const rows = await withKey('burst-50');
    expect(rows.map((r) => r.id)).toEqual([...ids]);
    expect(rows[0]).toMatchObject({ type: 'TEST_RECORD', payload: body.payload, status: 'PENDING' });
  });

  it('concurrent submissions of different requests under one key: one 201, the rest 409, one job', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        postJsonOnNewConnection(t.baseUrl, '/jobs', { type: 'TEST_RECORD', payload: { variant: i }, idempotencyKey: 'contested' }),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(9);
    const rows = await withKey('contested');
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe((created[0].body as { id: string }).id);
    expect(rows[0].payload).toEqual((created[0].body as { payload: unknown }).payload);
  });
});
