import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

const BODY_LIMIT = 2_048;

/** What fails before a controller runs: malformed JSON (400) and bodies over the limit (413). */
describe('request bodies', () => {
  let t: RestTestApp;
  const count = async () => (await t.rows()).length;

  beforeAll(async () => {
    t = await createRestTestApp('http_body', { engine: { runWorkers: false }, bodyLimitBytes: BODY_LIMIT });
  });

  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['a truncated object', '{"type": "TEST_RECORD", "payload": {'],
    ['single quotes', "{'type': 'TEST_RECORD'}"],
    ['a trailing comma', '{"type": "TEST_RECORD", "payload": {},}'],
    ['bare words', 'type=TEST_RECORD'],
  ])('malformed JSON (%s) is a 400 naming body, and nothing is stored', async (_name, text) => {
    for (const path of ['/jobs', '/jobs/batch']) {
      const res = await t.api().post(path).set('content-type', 'application/json').send(text);
      expectErrorBody(res, 400, ['body']);
    }
    expect(await count()).toBe(0);
  });

  it('a body over the limit is a 413, on single and batch submissions, and nothing is stored', async () => {
    const big = { type: 'TEST_RECORD', payload: { blob: 'x'.repeat(BODY_LIMIT) } };
    const single = await t.api().post('/jobs').send(big);
    expectErrorBody(single, 413);
    expect(single.body.message).toContain(String(BODY_LIMIT));
    expectErrorBody(await t.api().post('/jobs/batch').send({ jobs: [big] }), 413);
    expect(await count()).toBe(0);
  });

  it('a body just under the limit is accepted', async () => {
    const envelope = JSON.stringify({ type: 'TEST_RECORD', payload: { blob: '' } });
    const blob = 'x'.repeat(BODY_LIMIT - Buffer.byteLength(envelope));
    const body = JSON.stringify({ type: 'TEST_RECORD', payload: { blob } });
    expect(Buffer.byteLength(body)).toBe(BODY_LIMIT);
    const res = await t.api().post('/jobs').set('content-type', 'application/json').send(body).expect(201);
    expect((await t.row(res.body.id))!.payload).toEqual({ blob });
  });
});
