import { randomBytes, randomUUID } from 'node:crypto';
import { ConveyorClient, ConveyorHttpError, ConveyorNetworkError, Job, JobStatus, WaitForJobTimeoutError } from '@conveyor/client';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';

/** Resolves with the error a promise rejects with (fails the test when it resolves). */
async function rejection<E = unknown>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (err) {
    return err as E;
  }
  throw new Error('expected a rejection');
}

/** `@conveyor/client` against the real service, listening on a loopback port, with in-process TEST_RECORD workers. */
describe('ConveyorClient', () => {
  let t: RestTestApp;
  let client: ConveyorClient;
  const inAnHour = () => new Date(Date.now() + 3_600_000);

  beforeAll(async () => {
    t = await createRestTestApp('client');
    client = new ConveyorClient({ baseUrl: t.baseUrl });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('submits with an idempotency key: the same key answers the same job, and one row exists', async () => {
    const key = `client-${randomUUID()}`;
    const first = await client.submit({ type: 'TEST_RECORD', payload: { result: 'hi' } }, { idempotencyKey: key });
    const again = await client.submit({ type: 'TEST_RECORD', payload: { result: 'hi' } }, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    expect(first).toMatchObject({ type: 'TEST_RECORD', idempotencyKey: key, queue: 'default' });
    expect(await t.rows('idempotency_key = $1', [key])).toHaveLength(1);

    const conflict = await rejection<ConveyorHttpError>(
      client.submit({ type: 'TEST_RECORD', payload: { other: 1 } }, { idempotencyKey: key }),
    );
    expect(conflict).toBeInstanceOf(ConveyorHttpError);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ statusCode: 409, error: 'Conflict' });
  });

  it('submits with an idempotency key in any script (it travels in the body, not in a header)', async () => {
    const key = `請求書-café-${randomUUID()}`;
    const first = await client.submit({ type: 'TEST_RECORD', payload: {} }, { idempotencyKey: key });
    const again = await client.submit({ type: 'TEST_RECORD', payload: {}, idempotencyKey: key });
    expect(again.id).toBe(first.id);
    expect(await t.rows('idempotency_key = $1', [key])).toHaveLength(1);
  });

  it('waits for a job to finish, and gets it', async () => {
    const job = await client.submit({ type: 'TEST_RECORD', payload: { result: { answer: 42 } } });
    const done = await client.waitFor(job.id, { timeoutMs: 10_000, intervalMs: 25 });
    expect(done).toMatchObject({ id: job.id, status: JobStatus.COMPLETED, result: { answer: 42 }, attempts: 1 });
    expect(await client.get(job.id)).toEqual(done);
    expect((await t.row(job.id))!.status).toBe('COMPLETED');
  });

  it('gives up waiting with WaitForJobTimeoutError carrying the last state', async () => {
    const job = await client.submit({ type: 'TEST_RECORD', payload: {}, runAt: inAnHour() });
    const err = await rejection<WaitForJobTimeoutError>(client.waitFor(job.id, { timeoutMs: 200, intervalMs: 50 }));
    expect(err).toBeInstanceOf(WaitForJobTimeoutError);
    expect(err.job).toMatchObject({ id: job.id, status: JobStatus.SCHEDULED });
  });

  /** A proxy in front of the service, to take it out of the client's reach and bring it back. */
  async function behindProxy<T>(use: (proxy: TcpProxy, baseUrl: string) => Promise<T>): Promise<T> {
    const proxy = await new TcpProxy('127.0.0.1', Number(new URL(t.baseUrl).port)).start();
    try {
      return await use(proxy, `http://127.0.0.1:${proxy.port}`);
    } finally {
      await proxy.stop();
    }
  }

  it('waits through a spell without the server, and returns the job once it answers again', async () => {
    await behindProxy(async (proxy, baseUrl) => {
      const job = await client.submit({ type: 'TEST_RECORD', payload: { result: 'while away' } });
      proxy.cut();
      const waiting = new ConveyorClient({ baseUrl }).waitFor(job.id, { timeoutMs: 30_000, intervalMs: 25 });
      await waitFor(async () => (await t.row(job.id))?.status === 'COMPLETED' && proxy.refused >= 3, {
        message: 'the job to complete while the client is refused',
      });
      proxy.restore();
      expect(await waiting).toMatchObject({ id: job.id, status: JobStatus.COMPLETED, result: 'while away' });
    });
  });

  it('gives up at the deadline with the last state seen and, as its cause, why the server could not be read', async () => {
    await behindProxy(async (proxy, baseUrl) => {
      const job = await client.submit({ type: 'TEST_RECORD', payload: {}, runAt: inAnHour() });
      let reads = 0;
      // The second read and every one after it find the proxy cut.
      const cutAfterFirstRead: typeof fetch = (input, init) => {
        if (++reads === 2) proxy.cut();
        return fetch(input, init);
      };
      const waiting = new ConveyorClient({ baseUrl, fetch: cutAfterFirstRead }).waitFor(job.id, {
        live: false,
        // Room for the first read through a fresh connection on a slow machine; the rest is refused at once.
        timeoutMs: 3_000,
        intervalMs: 50,
      });
      const err = await rejection<WaitForJobTimeoutError>(waiting);
      expect(err).toBeInstanceOf(WaitForJobTimeoutError);
      expect(err.job).toMatchObject({ id: job.id, status: JobStatus.SCHEDULED });
      expect(err.cause).toBeInstanceOf(ConveyorNetworkError);
      expect(err.message).toMatch(/the last read failed: GET \/jobs\/[0-9a-f-]+ got no answer: fetch failed/);
      expect(proxy.refused).toBeGreaterThan(0);
    });
  });

  it('rejects at once for an answer that will not change: an unknown job is a 404', async () => {
    const err = await rejection<ConveyorHttpError>(client.waitFor(randomUUID(), { timeoutMs: 60_000, intervalMs: 25 }));
    expect(err).toBeInstanceOf(ConveyorHttpError);
    expect(err.status).toBe(404);
  });

  it('submits a batch in request order, all or nothing, with the bad field named', async () => {
    const jobs = await client.submitBatch([
      { type: 'TEST_RECORD', payload: { n: 1 }, queue: 'client-batch', runAt: inAnHour() },
      { type: 'TEST_RECORD', payload: { n: 2 }, queue: 'client-batch', delayMs: 3_600_000 },
    ]);
    expect(jobs.map((j) => j.payload)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await t.rows('queue = $1', ['client-batch'])).toHaveLength(2);

    const bad = await rejection<ConveyorHttpError>(
      client.submitBatch([
        { type: 'TEST_RECORD', payload: {}, queue: 'client-batch' },
        { type: 'NO_SUCH_TYPE', payload: {}, queue: 'client-batch' },
      ]),
    );
    expect(bad.status).toBe(400);
    expect(bad.fields).toEqual(['jobs[1].type']);
    expect(await t.rows('queue = $1', ['client-batch'])).toHaveLength(2);
  });

  it('lists with filters, page by page through the cursor, newest first', async () => {
    const queue = 'client-list';
    const submitted = await client.submitBatch(
      Array.from({ length: 5 }, (_, i) => ({ type: 'TEST_RECORD', payload: { i }, queue, runAt: inAnHour() })),
    );
    const seen: Job[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.list({ queue, status: JobStatus.SCHEDULED, limit: 2, cursor });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items);
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.map((j) => j.id)).toEqual(submitted.map((j) => j.id).reverse());

    const all: string[] = [];
    for await (const job of client.iterate({ queue, limit: 3 })) all.push(job.id);
    expect(all).toEqual(seen.map((j) => j.id));
    expect((await client.list({ queue, type: 'TEST_MAIL' })).items).toEqual([]);
  });

  it('cancels a waiting job and retries it; a wrong state is a 409, an unknown id a 404', async () => {
    const job = await client.submit({ type: 'TEST_RECORD', payload: { result: 'second life' }, runAt: inAnHour() });
    expect((await client.cancel(job.id)).status).toBe(JobStatus.CANCELLED);
    expect((await t.row(job.id))!.status).toBe('CANCELLED');
    expect((await rejection<ConveyorHttpError>(client.cancel(job.id))).status).toBe(409);

    expect((await client.retry(job.id)).status).toBe(JobStatus.PENDING);
    const done = await client.waitFor(job.id, { timeoutMs: 10_000, intervalMs: 25 });
    expect(done).toMatchObject({ status: JobStatus.COMPLETED, result: 'second life' });
    expect((await rejection<ConveyorHttpError>(client.retry(job.id))).status).toBe(409);

    const missing = await rejection<ConveyorHttpError>(client.get(randomUUID()));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('waits for DEAD jobs too, with their error history', async () => {
    const job = await client.submit({ type: 'TEST_RECORD', payload: { alwaysFail: true }, maxAttempts: 1 });
    const dead = await client.waitFor(job.id, { timeoutMs: 10_000, intervalMs: 25 });
    expect(dead).toMatchObject({ status: JobStatus.DEAD, attempts: 1, lastError: 'Error: attempt 1 failed' });
    expect(dead.errors).toHaveLength(1);
  });
});

describe('ConveyorClient with API keys', () => {
  const PRODUCER = `p-${randomBytes(12).toString('hex')}`;
  const ADMIN = `a-${randomBytes(12).toString('hex')}`;
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('client_keys');
    t = await createTestApp({
      schema: schema.schema,
      listen: true,
      engine: { runWorkers: false, externalTypes: ['EXT_KEYED'] },
      httpOptions: {
        apiKeys: [
          { role: 'producer', key: PRODUCER },
          { role: 'admin', key: ADMIN },
        ],
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  it('sends the key as a bearer token; no key is a 401, a weaker role a 403', async () => {
    const anonymous = await rejection<ConveyorHttpError>(new ConveyorClient({ baseUrl: t.baseUrl }).list());
    expect(anonymous).toMatchObject({ status: 401, body: expect.objectContaining({ statusCode: 401 }) });

    const producer = new ConveyorClient({ baseUrl: t.baseUrl, apiKey: PRODUCER });
    const job = await producer.submit({ type: 'EXT_KEYED', payload: {} });
    expect((await producer.get(job.id)).id).toBe(job.id);
    expect((await rejection<ConveyorHttpError>(producer.cancel(job.id))).status).toBe(403);

    const admin = new ConveyorClient({ baseUrl: `${t.baseUrl}/`, apiKey: ADMIN });
    expect((await admin.cancel(job.id)).status).toBe(JobStatus.CANCELLED);
  });
});
