import { maxHeaderSize, STATUS_CODES } from 'node:http';
import { connect } from 'node:net';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/** What came back on a raw connection, read until the server closed it. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The connection ended in a reset rather than a close. */
  reset: boolean;
}

/**
 * Sends `bytes` on a fresh connection, half-closes it, and reads until the server closes its side. Raw,
 * because these requests are ones an HTTP client library refuses to build or gives up on at the first error.
 */
function exchange(baseUrl: string, bytes: Buffer | string): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let reset = false;
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') reset = true;
      else reject(err);
    });
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const [statusLine, ...headerLines] = (split < 0 ? raw : raw.slice(0, split)).split('\r\n');
      const headers = Object.fromEntries(
        headerLines
          .filter(Boolean)
          .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0),
        headers,
        body: split < 0 ? '' : raw.slice(split + 4),
        reset,
      });
    });
    socket.write(bytes, () => socket.end());
  });
}

/** The answer is the API's JSON error shape with this status, on a connection the server then closed cleanly. */
function expectJsonError(answer: RawAnswer, status: number): { message: string } {
  expect({ status: answer.status, reset: answer.reset }).toEqual({ status, reset: false });
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers.connection).toBe('close');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  const body = JSON.parse(answer.body) as { statusCode: number; error: string; message: string };
  expect(Object.keys(body).sort()).toEqual(['error', 'message', 'statusCode']);
  expect(body).toMatchObject({ statusCode: status, error: STATUS_CODES[status] });
  return body;
}

/** What Node's HTTP parser refuses before any route runs, answered in the API's error shape. */
describe('requests refused before they are parsed', () => {
  let t: RestTestApp;
  const get = (headers: string) => `GET /health/live HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`;

  beforeAll(async () => {
    t = await createRestTestApp('http_client_errors', { engine: { runWorkers: false } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('a header over the limit is a 431 in the JSON error shape naming the limit', async () => {
    const answer = await exchange(t.baseUrl, get(`X-Big: ${'a'.repeat(maxHeaderSize + 1)}\r\n`));
    expect(expectJsonError(answer, 431).message).toContain(String(maxHeaderSize));
  });

  it('many headers over the limit together are a 431 too', async () => {
    const headers = Array.from({ length: 200 }, (_, i) => `X-Part-${i}: ${'b'.repeat(100)}\r\n`).join('');
    expectJsonError(await exchange(t.baseUrl, get(headers)), 431);
  });

  it('a client still sending a huge header reads the 431, not a connection reset', async () => {
    const answer = await exchange(t.baseUrl, get(`X-Huge: ${'c'.repeat(4 * 1024 * 1024)}\r\n`));
    expectJsonError(answer, 431);
  });

  it('bytes that are not an HTTP request are a 400 in the JSON error shape', async () => {
    expectJsonError(await exchange(t.baseUrl, 'NOT HTTP AT ALL\r\n\r\n'), 400);
    expectJsonError(await exchange(t.baseUrl, 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n'), 400);
  });

  it('the server goes on answering normal requests', async () => {
    await exchange(t.baseUrl, get(`X-Big: ${'a'.repeat(maxHeaderSize + 1)}\r\n`));
    const answer = await exchange(t.baseUrl, get('Connection: close\r\n'));
    expect(answer.status).toBe(200);
    await t.api().get('/health/live').expect(200);
  });
});
