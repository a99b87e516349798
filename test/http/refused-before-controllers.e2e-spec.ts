import { maxHeaderSize } from 'node:http';
import { connect } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

const BODY_LIMIT = 2_048;
/** Sends a Buffer body byte for byte (superagent would turn it into the JSON of a Buffer object). */
const asIs = (body: unknown) => body as string;
const job = JSON.stringify({ type: 'TEST_RECORD', payload: { n: 1 } });

/** Sends raw bytes, half-closes, and reads the answer until the server closes: for requests no client builds. */
function exchange(baseUrl: string, bytes: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(raw)?.[1] ?? 0), body: raw.slice(raw.indexOf('\r\n\r\n') + 4) });
    });
    socket.write(bytes, () => socket.end());
  });
}

/**
 * What Conveyor's routes refuse before a controller runs, answered alike on both Nest platforms: the API's error
 * shape, a clear 4xx, the field or reason named, helmet's headers on, and nothing stored.
 */
describe.each(['express', 'fastify'] as const)('refused before a controller, on %s', (platform) => {
  let t: RestTestApp;
  const post = (path = '/jobs') => t.api().post(path);
  const expectRefused = async (res: Awaited<ReturnType<typeof post>>, status: number, fields: string[] = []) => {
    expectErrorBody(res, status, fields);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  };

  beforeAll(async () => {
    t = await createRestTestApp(`refused_${platform}`, { platform, engine: { runWorkers: false }, bodyLimitBytes: BODY_LIMIT });
    expect(t.app.getHttpAdapter().getType()).toBe(platform);
  });

  afterEach(async () => {
    expect(await t.rows()).toEqual([]);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('malformed JSON: 400 naming body', async () => {
    const res = await post().set('content-type', 'application/json').send('{"type": "TEST_RECORD",');
    await expectRefused(res, 400, ['body']);
    expect(res.body.message).toBe('Malformed JSON in request body');
  });

  it('invalid UTF-8: 400 naming body', async () => {
    const body = Buffer.concat([Buffer.from('{"type":"TEST_RECORD","payload":{"s":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]);
    const res = await post().set('content-type', 'application/json').serialize(asIs).send(body);
    await expectRefused(res, 400, ['body']);
    expect(res.body.message).toBe('Invalid UTF-8 in request body');
  });

  it('a body over the limit: 413 saying the limit, whether the length is declared or chunked', async () => {
    const big = JSON.stringify({ type: 'TEST_RECORD', payload: { text: 'x'.repeat(BODY_LIMIT) } });
    const declared = await post().set('content-type', 'application/json').send(big);
    await expectRefused(declared, 413);
    expect(declared.body.message).toBe(`Request body is larger than ${BODY_LIMIT} bytes`);
    const chunk = Buffer.byteLength(big).toString(16);
    const chunked = await exchange(
      t.baseUrl,
      `POST /jobs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk}\r\n${big}\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toEqual(declared.body);
  });

  it('a compressed body over the limit once inflated: 413', async () => {
    const bomb = gzipSync(JSON.stringify({ type: 'TEST_RECORD', payload: { text: 'x'.repeat(BODY_LIMIT * 10) } }));
    expect(bomb.length).toBeLessThan(BODY_LIMIT);
    await expectRefused(
      await post().set('content-type', 'application/json').set('content-encoding', 'gzip').serialize(asIs).send(bomb),
      413,
    );
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['XML', 'application/xml'],
  ])('a body that is not JSON (%s): 415 naming content-type', async (_name, type) => {
    const res = await post().set('content-type', type).send('type=TEST_RECORD');
    await expectRefused(res, 415, ['content-type']);
    expect(res.body.message).toContain(type);
  });

  it('an unsupported charset: 415 naming it', async () => {
    const res = await post().set('content-type', 'application/json; charset=latin1').send(job);
    await expectRefused(res, 415);
    expect(res.body.message).toContain('LATIN1');
  });

  it('an unknown content encoding: 415 naming content-encoding; gzip and br bodies are read', async () => {
    await expectRefused(await post().set('content-type', 'application/json').set('content-encoding', 'compress').send(job), 415, [
      'content-encoding',
    ]);
    const gz = await post().set('content-type', 'application/json').set('content-encoding', 'gzip').serialize(asIs).send(gzipSync(job));
    const br = await post()
      .set('content-type', 'application/json')
      .set('content-encoding', 'br')
      .serialize(asIs)
      .send(brotliCompressSync(job));
    expect([gz.status, br.status]).toEqual([201, 201]);
    await t.sql.query(`DELETE FROM ${t.jobsTable}`);
  });

  it('a body that does not inflate: 400 naming body', async () => {
    await expectRefused(await post().set('content-type', 'application/json').set('content-encoding', 'gzip').send(job), 400, ['body']);
  });

  it('a URL path that is not valid percent-encoding: 400 naming path', async () => {
    await expectRefused(await t.api().get('/jobs/%E0%A4%A'), 400, ['path']);
    await expectRefused(await post('/queues/%FF/pause').send({}), 400, ['path']);
  });

  it('application/*+json is read as JSON, and an empty JSON body as {}', async () => {
    expect((await post().set('content-type', 'application/vnd.api+json').send(job)).status).toBe(201);
    await t.sql.query(`DELETE FROM ${t.jobsTable}`);
    expectErrorBody(await post().set('content-type', 'application/json').send(''), 400, ['type']);
  });

  it("what Node's HTTP parser refuses: headers over its limit (431) and a malformed request (400), in the API's shape", async () => {
    const big = await exchange(
      t.baseUrl,
      `GET /health/live HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'x'.repeat(maxHeaderSize + 1)}\r\n\r\n`,
    );
    expect(big.status).toBe(431);
    expect(JSON.parse(big.body)).toMatchObject({ statusCode: 431, error: 'Request Header Fields Too Large' });
    const garbage = await exchange(t.baseUrl, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body)).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Malformed HTTP request' });
  });
});
