import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

const BODY_LIMIT = 2_048;
/** Sends a Buffer body byte for byte (superagent would turn it into the JSON of a Buffer object). */
const asIs = (body: unknown) => body as string;

/** What fails before a controller runs: malformed JSON or UTF-8 (400) and bodies over the limit (413). */
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

  it.each([
    ['a byte that never starts a character', [0xff]],
    ['a lone continuation byte', [0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['an encoded UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['Latin-1 text', [...Buffer.from('caf\u00e9', 'latin1')]],
  ])('invalid UTF-8 (%s) is a 400 saying so, never a replacement character stored', async (_name, bytes) => {
    const job = (text: Buffer) => Buffer.concat([Buffer.from('{"type":"TEST_RECORD","payload":{"s":"a'), text, Buffer.from('b"}}')]);
    const bodies = {
      '/jobs': job(Buffer.from(bytes)),
      '/jobs/batch': Buffer.concat([Buffer.from('{"jobs":['), job(Buffer.from(bytes)), Buffer.from(']}')]),
    };
    for (const [path, body] of Object.entries(bodies)) {
      const res = await t.api().post(path).set('content-type', 'application/json').serialize(asIs).send(body);
      expectErrorBody(res, 400, ['body']);
      expect(res.body.message).toBe('Invalid UTF-8 in request body');
      expect(res.body.details).toEqual([{ field: 'body', problems: ['is not valid UTF-8'] }]);
    }
    expect(await count()).toBe(0);
  });

  it('valid UTF-8 of every length is stored as sent', async () => {
    const s = 'a\u00e9\u20ac\ud83d\ude00\u4e2d';
    const res = await t
      .api()
      .post('/jobs')
      .set('content-type', 'application/json; charset=utf-8')
      .serialize(asIs)
      .send(Buffer.from(JSON.stringify({ type: 'TEST_RECORD', payload: { s } })))
      .expect(201);
    expect((await t.row(res.body.id))!.payload).toEqual({ s });
    await t.sql.query(`DELETE FROM ${t.jobsTable} WHERE id = $1`, [res.body.id]);
  });

  it('a body over the limit is a 413, on single and batch submissions, and nothing is stored', async () => {
    const big = { type: 'TEST_RECORD', payload: { blob: 'x'.repeat(BODY_LIMIT) } };
    const single = await t.api().post('/jobs').send(big);
    expectErrorBody(single, 413);
    expect(single.body.message).toContain(String(BODY_LIMIT));
    expectErrorBody(
      await t
        .api()
        .post('/jobs/batch')
        .send({ jobs: [big] }),
      413,
    );
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
