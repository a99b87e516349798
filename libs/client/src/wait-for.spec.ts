import { ConveyorClient } from './conveyor-client';
import { WaitForJobTimeoutError } from './wait-for-job-timeout.error';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const job = (status: string) => ({ id: 'j1', status, type: 'T', queue: 'q' });

/** A client whose every read of the job answers as `answer` says (a thrown error: no answer at all). */
function clientAnswering(answer: (read: number) => Response | Error): { client: ConveyorClient; reads: () => number } {
  let reads = 0;
  const fetchImpl = (async () => {
    const a = answer(++reads);
    if (a instanceof Error) throw a;
    return a;
  }) as typeof fetch;
  return { client: new ConveyorClient({ baseUrl: 'http://h', fetch: fetchImpl }), reads: () => reads };
}

/** What Node's fetch throws when the server cannot be reached: its error, with the socket's as cause. */
const networkError = () =>
  new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:80'), { code: 'ECONNREFUSED' }) });

/** The error a promise rejects with. */
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (err: unknown) => err,
  );

describe('ConveyorClient.waitFor', () => {
  it('waits without end, or for a fractional timeout, reading the job as any wait does', async () => {
    for (const timeoutMs of [Infinity, 10_000.5, 2 ** 32]) {
      const { client } = clientAnswering((read) => json(200, job(read < 3 ? 'RUNNING' : 'COMPLETED')));
      expect(await client.waitFor('j1', { live: false, timeoutMs, intervalMs: 1 })).toMatchObject({ status: 'COMPLETED' });
    }
  });

  it('refuses a timeout or interval that is no number of milliseconds, naming it', async () => {
    const { client, reads } = clientAnswering(() => json(200, job('COMPLETED')));
    expect(await rejection(client.waitFor('j1', { timeoutMs: NaN }))).toEqual(
      expect.objectContaining({ name: 'RangeError', message: expect.stringMatching(/^timeoutMs/) }),
    );
    expect(await rejection(client.waitFor('j1', { timeoutMs: '5000' as unknown as number }))).toEqual(
      expect.objectContaining({ name: 'RangeError', message: expect.stringMatching(/^timeoutMs/) }),
    );
    expect(await rejection(client.waitFor('j1', { intervalMs: 0 }))).toEqual(
      expect.objectContaining({ name: 'RangeError', message: expect.stringMatching(/^intervalMs/) }),
    );
    expect(reads()).toBe(0);
  });

  it('reads again after no answer, a 503 and a 429, and returns the job once a read succeeds', async () => {
    // A fresh answer each read: a Response's body can be read once.
    const answers = [
      () => networkError(),
      () => json(503, { statusCode: 503, error: 'Service Unavailable', message: 'down' }),
      () => json(429, { statusCode: 429, error: 'Too Many Requests', message: 'slow down' }),
      () => json(200, job('COMPLETED')),
    ];
    const { client, reads } = clientAnswering((read) => answers[read - 1]());
    expect(await client.waitFor('j1', { live: false, timeoutMs: 60_000, intervalMs: 1 })).toMatchObject({ status: 'COMPLETED' });
    expect(reads()).toBe(4);
  });

  it('gives up at the deadline with no state and the last failure when no read succeeds', async () => {
    const { client } = clientAnswering(() => networkError());
    const err = (await rejection(client.waitFor('j1', { live: false, timeoutMs: 50, intervalMs: 1 }))) as WaitForJobTimeoutError;
    expect(err).toBeInstanceOf(WaitForJobTimeoutError);
    expect(err).toMatchObject({ jobId: 'j1', job: null, timeoutMs: 50 });
    expect(err.message).toMatch(/^Job j1 could not be read within 50 ms \(the last read failed: GET \/jobs\/j1 got no answer/);
  });

  it("rejects at once with the caller's reason when its signal aborts during an outage", async () => {
    const { client, reads } = clientAnswering(() => networkError());
    const caller = new AbortController();
    const waiting = rejection(client.waitFor('j1', { live: false, timeoutMs: 3_600_000, intervalMs: 5, signal: caller.signal }));
    while (reads() < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    caller.abort(new Error('no longer needed'));
    expect(await waiting).toEqual(expect.objectContaining({ message: 'no longer needed' }));
  });

  it('stops at a programming error instead of reading again and again', async () => {
    const { client, reads } = clientAnswering(() => new RangeError('a bug'));
    expect(await rejection(client.waitFor('j1', { live: false, timeoutMs: 3_600_000, intervalMs: 1 }))).toEqual(
      expect.objectContaining({ name: 'RangeError', message: 'a bug' }),
    );
    expect(reads()).toBe(1);
  });
});
