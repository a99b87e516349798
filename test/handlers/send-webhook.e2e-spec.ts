import { Job, JobStatus, JobValidationError } from '@conveyor/core';
import { createServer } from 'node:net';
import { AppSettings, loadAppConfig } from '../../apps/server/src/config/app-config';
import { APP_SETTINGS } from '../../apps/server/src/config/app-settings.token';
import { SendWebhookHandler } from '../../apps/server/src/handlers/send-webhook.handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { WebhookTestServer } from './webhook-test-server';

/** Every retry waits exactly this long, so the spacing of requests can be checked. */
const BACKOFF_MS = 200;
/** Short enough to keep the timeout case quick, long enough for a loaded loopback server to answer. */
const WEBHOOK_TIMEOUT_MS = 1_000;
const FINISHED: JobStatus[] = [JobStatus.COMPLETED, JobStatus.DEAD, JobStatus.CANCELLED];

function appSettings(overrides: Partial<AppSettings>): AppSettings {
  return { ...loadAppConfig({}).app, ...overrides };
}

/** A loopback port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** SEND_WEBHOOK through the real engine against a real HTTP server: outcomes, retries, snoozes, payload checks. */
describe('SEND_WEBHOOK handler', () => {
  let schema: TestSchema;
  let server: WebhookTestServer;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('send_webhook');
    server = new WebhookTestServer();
    await server.start();
    t = await createTestApp({
      schema: schema.schema,
      providers: [
        SendWebhookHandler,
        { provide: APP_SETTINGS, useValue: appSettings({ webhookTimeoutMs: WEBHOOK_TIMEOUT_MS, allowPrivateNetworks: true }) },
      ],
      engine: { backoff: { baseMs: BACKOFF_MS, maxMs: BACKOFF_MS, factor: 1, jitter: 0 } },
      http: false,
    });
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
    await schema?.drop();
  });

  async function finished(id: string, app: TestApp = t): Promise<Job> {
    return waitFor(
      async () => {
        const job = await app.jobs.get(id);
        return FINISHED.includes(job.status) && job;
      },
      { message: `job ${id} to finish` },
    );
  }

  async function send(payload: object, maxAttempts?: number): Promise<Job> {
    return t.jobs.enqueue('SEND_WEBHOOK', payload, maxAttempts ? { maxAttempts } : {});
  }

  it('a 2xx completes, storing the status and body; the server got the JSON, the headers and the job id as idempotency key', async () => {
    const endpoint = server.endpoint({ status: 202, body: 'accepted' });
    const job = await send({
      url: endpoint.url,
      body: { order: 42, items: ['a', 'b'] },
      headers: { 'X-Signature': 'sig-1', Authorization: 'Bearer t0k3n' },
    });
    const done = await finished(job.id);

    expect(done).toMatchObject({
      status: JobStatus.COMPLETED,
      queue: 'webhooks',
      attempts: 1,
      snoozes: 0,
      result: { status: 202, body: 'accepted' },
    });
    expect(endpoint.requests).toHaveLength(1);
    const [request] = endpoint.requests;
    expect(request.method).toBe('POST');
    expect(JSON.parse(request.body)).toEqual({ order: 42, items: ['a', 'b'] });
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': job.id,
      'x-signature': 'sig-1',
      authorization: 'Bearer t0k3n',
    });
  });

  it('a payload header replaces the default of the same name in any case, instead of being sent as a second value', async () => {
    const endpoint = server.endpoint({ status: 200 });
    const job = await send({ url: endpoint.url, body: 'x', headers: { 'Content-Type': 'application/cloudevents+json' } });

    expect(await finished(job.id)).toMatchObject({ status: JobStatus.COMPLETED });
    expect(endpoint.requests[0].headers['content-type']).toBe('application/cloudevents+json');
  });

  it('stores only the start of a large response body', async () => {
    const endpoint = server.endpoint({ status: 200, body: 'y'.repeat(100_000) });
    const job = await send({ url: endpoint.url });

    const done = await finished(job.id);
    expect(done).toMatchObject({ status: JobStatus.COMPLETED, result: { status: 200, body: 'y'.repeat(2048) } });
  });

  it('a body with a NUL completes with its status and the body, the NUL replaced: PostgreSQL cannot store one', async () => {
    const endpoint = server.endpoint({ status: 200, body: 'a\u0000b' });
    const job = await send({ url: endpoint.url });

    const done = await finished(job.id);
    expect(done).toMatchObject({ status: JobStatus.COMPLETED, result: { status: 200, body: 'a\uFFFDb' }, lastError: null });
  });

  it('503 with Retry-After snoozes until then without using an attempt, then completes', async () => {
    const endpoint = server.endpoint({ status: 503, headers: { 'Retry-After': '1' }, body: 'busy' }, { status: 200, body: 'ok' });
    const job = await send({ url: endpoint.url, body: { n: 1 } });
    const done = await finished(job.id);

    expect(done).toMatchObject({ status: JobStatus.COMPLETED, attempts: 1, snoozes: 1, result: { status: 200, body: 'ok' } });
    expect(done.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'retry-later', retryAt: expect.any(String) })]);
    expect(endpoint.requests).toHaveLength(2);
    // Retry-After is counted from when the handler read the answer, a moment after the server's timestamp.
    expect(endpoint.requests[1].at - endpoint.requests[0].at).toBeGreaterThanOrEqual(950);
  });

  it('429 without Retry-After is an ordinary failure: the attempt counts and the job is retried', async () => {
    const endpoint = server.endpoint({ status: 429, body: 'slow down' }, { status: 200 });
    const job = await send({ url: endpoint.url });
    const done = await finished(job.id);

    expect(done).toMatchObject({ status: JobStatus.COMPLETED, attempts: 2, snoozes: 0 });
    expect(done.errors).toEqual([
      expect.objectContaining({ attempt: 1, kind: 'failed', error: expect.stringContaining('answered 429: slow down') }),
    ]);
    expect(endpoint.requests).toHaveLength(2);
  });

  it('408 (the receiver gave up waiting for the request) is an ordinary failure, retried: the request may be repeated', async () => {
    const endpoint = server.endpoint({ status: 408, body: 'request timeout' }, { status: 200 });
    const job = await send({ url: endpoint.url });
    const done = await finished(job.id);

    expect(done).toMatchObject({ status: JobStatus.COMPLETED, attempts: 2 });
    expect(done.errors).toEqual([
      expect.objectContaining({ attempt: 1, kind: 'failed', error: expect.stringContaining('answered 408: request timeout') }),
    ]);
  });

  it.each([400, 404, 410])('%i is permanent: DEAD after one attempt', async (status) => {
    const endpoint = server.endpoint({ status, body: 'no such hook' });
    const job = await send({ url: endpoint.url });
    const dead = await finished(job.id);

    expect(dead).toMatchObject({ status: JobStatus.DEAD, attempts: 1 });
    expect(dead.lastError).toBe(`PermanentJobError: POST ${new URL(endpoint.url).origin} answered ${status}: no such hook`);
    expect(dead.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'permanent' })]);
    expect(endpoint.requests).toHaveLength(1);
  });

  it('a redirect is not followed and is permanent', async () => {
    const endpoint = server.endpoint({ status: 301, headers: { Location: 'http://127.0.0.1:1/elsewhere' } });
    const job = await send({ url: endpoint.url });
    const dead = await finished(job.id);

    expect(dead).toMatchObject({ status: JobStatus.DEAD, attempts: 1 });
    expect(dead.lastError).toContain('answered 301 (redirects are not followed)');
  });

  it('500 is retried with backoff until it succeeds', async () => {
    const endpoint = server.endpoint({ status: 500, body: 'oops' }, { status: 500, body: 'oops' }, { status: 200, body: 'fine' });
    const job = await send({ url: endpoint.url });
    const done = await finished(job.id);

    expect(done).toMatchObject({ status: JobStatus.COMPLETED, attempts: 3, snoozes: 0, result: { status: 200, body: 'fine' } });
    expect(done.errors.map((e) => [e.attempt, e.kind])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
    ]);
    expect(done.errors[0].error).toBe(`WebhookDeliveryError: POST ${new URL(endpoint.url).origin} answered 500: oops`);
    const times = endpoint.requests.map((r) => r.at);
    // The backoff is counted by the database clock from when the failure was written, after the server's timestamp.
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(BACKOFF_MS - 20);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(BACKOFF_MS - 20);
  });

  it('a refused connection is retried, and the error says why', async () => {
    const port = await closedPort();
    const job = await send({ url: `http://127.0.0.1:${port}/hook?token=secret` }, 2);
    const dead = await finished(job.id);

    expect(dead).toMatchObject({ status: JobStatus.DEAD, attempts: 2 });
    expect(dead.lastError).toBe(`WebhookDeliveryError: POST http://127.0.0.1:${port} failed: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(dead.errors.map((e) => [e.attempt, e.kind])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
    ]);
    // The URL's path and query (often a secret) stay out of the error.
    expect(JSON.stringify(dead.errors)).not.toContain('secret');
  });

  it('a server that never answers times the attempt out, and the job is retried', async () => {
    const endpoint = server.endpoint({ hang: true });
    const job = await send({ url: endpoint.url }, 2);
    const dead = await finished(job.id);

    expect(dead).toMatchObject({ status: JobStatus.DEAD, attempts: 2 });
    expect(dead.errors).toEqual([
      expect.objectContaining({
        attempt: 1,
        kind: 'failed',
        error: expect.stringContaining(`got no answer within ${WEBHOOK_TIMEOUT_MS} ms`),
      }),
      expect.objectContaining({
        attempt: 2,
        kind: 'failed',
        error: expect.stringContaining(`got no answer within ${WEBHOOK_TIMEOUT_MS} ms`),
      }),
    ]);
    expect(endpoint.requests).toHaveLength(2);
  });

  describe('with ALLOW_PRIVATE_NETWORKS off', () => {
    let guardedSchema: TestSchema;
    let guarded: TestApp;
    /** Serves IPv4 and IPv6 loopback alike, so only the guard can tell the cases apart. */
    let dualStack: WebhookTestServer;

    beforeAll(async () => {
      guardedSchema = await createTestSchema('send_webhook_guarded');
      dualStack = new WebhookTestServer();
      await dualStack.start('::');
      guarded = await createTestApp({
        schema: guardedSchema.schema,
        providers: [SendWebhookHandler, { provide: APP_SETTINGS, useValue: appSettings({ webhookTimeoutMs: WEBHOOK_TIMEOUT_MS }) }],
        http: false,
      });
    });
    afterAll(async () => {
      await guarded?.close();
      await dualStack?.close();
      await guardedSchema?.drop();
    });

    it.each([
      ['127.0.0.1', '127.0.0.1 is not a public address'],
      ['[::1]', '::1 is not a public address'],
      ['[::ffff:127.0.0.1]', '::ffff:7f00:1 is not a public address'],
      ['localhost', /localhost resolves to (127\.0\.0\.1|::1), which is not a public address/],
    ])('a webhook to %s is DEAD on its first attempt, sending nothing; allowed, the same request succeeds', async (host, reason) => {
      const endpoint = dualStack.endpoint({ status: 200, body: 'internal' });
      const url = endpoint.url.replace('127.0.0.1', host);
      const target = `POST ${new URL(url).origin}`;

      const refused = await guarded.jobs.enqueue('SEND_WEBHOOK', { url });
      const dead = await finished(refused.id, guarded);

      expect(dead).toMatchObject({ status: JobStatus.DEAD, attempts: 1 });
      expect(dead.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'permanent' })]);
      expect(dead.lastError).toMatch(`PermanentJobError: ${target} refused: `);
      expect(dead.lastError).toMatch(reason);
      expect(dead.lastError).toMatch(/; ALLOW_PRIVATE_NETWORKS=true allows private networks$/);
      expect(endpoint.requests).toHaveLength(0);

      const allowed = await finished((await send({ url })).id);
      expect(allowed).toMatchObject({ status: JobStatus.COMPLETED, result: { status: 200, body: 'internal' } });
      expect(endpoint.requests).toHaveLength(1);
    });
  });

  describe('payload validation', () => {
    const count = async () => (await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n as number;

    it.each([
      ['an ftp URL', { url: 'ftp://example.com/hook' }, 'payload.url'],
      ['a javascript: URL', { url: 'javascript:alert(1)' }, 'payload.url'],
      ['a URL with credentials', { url: 'http://user:pass@example.com/hook' }, 'payload.url'],
      ['a missing URL', { body: { a: 1 } }, 'payload.url'],
      ['a header value with CR/LF', { url: 'http://example.com/hook', headers: { 'X-A': 'a\r\nX-Injected: 1' } }, 'payload.headers'],
      ['a header value that is not a string', { url: 'http://example.com/hook', headers: { 'X-A': 1 } }, 'payload.headers'],
      ['a header fetch cannot send', { url: 'http://example.com/hook', headers: { 'X-A': '\u4e2d' } }, 'payload.headers'],
      ['a header the HTTP client sets', { url: 'http://example.com/hook', headers: { 'Transfer-Encoding': 'chunked' } }, 'payload.headers'],
      ['an unknown field', { url: 'http://example.com/hook', method: 'PUT' }, 'payload.method'],
    ])('refuses %s at submission, naming the field, and stores nothing', async (_case, payload, field) => {
      const before = await count();

      const error = await t.jobs.submit({ type: 'SEND_WEBHOOK', payload }).catch((err: unknown) => err);

      expect(error).toBeInstanceOf(JobValidationError);
      expect((error as JobValidationError).status).toBe(400);
      expect((error as JobValidationError).message).toContain(field);
      expect((error as JobValidationError).details).toEqual([expect.objectContaining({ field })]);
      expect(await count()).toBe(before);
    });
  });
});
