import { ConveyorClient } from './conveyor-client';
import { ConveyorHttpError } from './conveyor-http.error';

/** A fetch that records requests and answers with the given responses in turn. */
function fakeFetch(...answers: Response[]): { fetch: typeof fetch; calls: Array<{ url: string; init: RequestInit }> } {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetchImpl = (async (url: URL | string, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    const answer = answers.shift();
    if (!answer) throw new Error('no more answers');
    return answer;
  }) as typeof fetch;
  return { fetch: fetchImpl, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('ConveyorClient requests', () => {
  it('sends JSON with the bearer key and the idempotency key, to the path under baseUrl', async () => {
    const f = fakeFetch(json(201, { id: 'j1' }));
    const client = new ConveyorClient({ baseUrl: 'http://conveyor:3000/', apiKey: 'k-1', fetch: f.fetch });
    await client.submit({ type: 'T', payload: { a: 1 }, runAt: new Date('2030-01-01T00:00:00Z') }, { idempotencyKey: 'idem' });
    const [{ url, init }] = f.calls;
    expect(url).toBe('http://conveyor:3000/jobs');
    expect(init.method).toBe('POST');
    expect(init.headers).toMatchObject({ authorization: 'Bearer k-1', 'content-type': 'application/json' });
    expect(JSON.parse(init.body as string)).toEqual({
      type: 'T',
      payload: { a: 1 },
      runAt: '2030-01-01T00:00:00.000Z',
      idempotencyKey: 'idem',
    });
  });

  it('rejects, sending nothing, a submission given two different idempotency keys', async () => {
    const f = fakeFetch();
    const client = new ConveyorClient({ baseUrl: 'http://h', fetch: f.fetch });
    await expect(client.submit({ type: 'T', payload: {}, idempotencyKey: 'a' }, { idempotencyKey: 'b' })).rejects.toBeInstanceOf(TypeError);
    expect(f.calls).toEqual([]);
  });

  it('puts list filters in the query string and escapes path segments', async () => {
    const f = fakeFetch(json(200, { items: [], nextCursor: null }), json(200, { jobs: [] }));
    const client = new ConveyorClient({ baseUrl: 'http://h', fetch: f.fetch });
    await client.list({ status: 'DEAD', queue: 'a b', limit: 5 });
    await client.claim('q/1', { workerId: 'w' });
    expect(f.calls.map((c) => c.url)).toEqual(['http://h/jobs?status=DEAD&queue=a+b&limit=5', 'http://h/queues/q%2F1/claim']);
  });

  it("throws ConveyorHttpError with the status, the server's error body and Retry-After", async () => {
    const body = { statusCode: 503, error: 'Service Unavailable', message: 'The job database is unavailable; try again shortly.' };
    const f = fakeFetch(json(503, body, { 'retry-after': '2' }), new Response('<html>bad gateway</html>', { status: 502 }));
    const client = new ConveyorClient({ baseUrl: 'http://h', fetch: f.fetch });
    const err = (await client.get('x').catch((e: unknown) => e)) as ConveyorHttpError;
    expect(err).toBeInstanceOf(ConveyorHttpError);
    expect(err).toMatchObject({ status: 503, body, retryAfterMs: 2000, method: 'GET', path: '/jobs/x' });
    expect(err.message).toContain('The job database is unavailable');
    const proxy = (await client.get('x').catch((e: unknown) => e)) as ConveyorHttpError;
    expect(proxy).toMatchObject({ status: 502, body: null });
  });

  it('refuses a baseUrl that is not http(s)', () => {
    expect(() => new ConveyorClient({ baseUrl: 'conveyor:3000' })).toThrow(TypeError);
  });
});
