import { Injectable } from '@nestjs/common';
import request from 'supertest';
import { JobHandler, JobHandlerHost, JobStatus } from '@conveyor/core';
import { expectErrorBody } from '../http/support/error-body.assertions';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { createTestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';

const BODY_LIMIT = 2_048;
/** Sends a Buffer body byte for byte (superagent would turn it into the JSON of a Buffer object). */
const asIs = (body: unknown) => body as string;

/** A type to submit while the worker is off. */
@Injectable()
@JobHandler('FASTIFY_NOOP')
class NoopHandler extends JobHandlerHost {
  handle(): null {
    return null;
  }
}

/** The core REST flows of test/http, on the Fastify platform: the same answers, the same error shape. */
describe('the REST API on Fastify', () => {
  describe('without API keys', () => {
    let t: RestTestApp;

    beforeAll(async () => {
      t = await createRestTestApp('fastify_rest', { platform: 'fastify', engine: { runWorkers: false }, bodyLimitBytes: BODY_LIMIT });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('runs on Fastify', () => {
      expect(t.app.getHttpAdapter().getType()).toBe('fastify');
    });

    it('submits a job (201), answers the same idempotency key with the same job (200), and gets and lists it', async () => {
      const body = { type: 'TEST_RECORD', payload: { n: 1 } };
      const created = await t.api().post('/jobs').set('Idempotency-Key', 'fastify-1').send(body).expect(201);
      expect(created.body).toMatchObject({ type: 'TEST_RECORD', status: JobStatus.PENDING, payload: { n: 1 } });
      expect(await t.statusOf(created.body.id)).toBe(JobStatus.PENDING);
      const again = await t.api().post('/jobs').set('Idempotency-Key', 'fastify-1').send(body).expect(200);
      expect(again.body.id).toBe(created.body.id);
      expect((await t.api().get(`/jobs/${created.body.id}`).expect(200)).body).toMatchObject({ id: created.body.id });
      const page = await t.api().get('/jobs').query({ type: 'TEST_RECORD' }).expect(200);
      expect(page.body.items.map((j: { id: string }) => j.id)).toContain(created.body.id);
    });

    it('answers an invalid submission with a 400 naming the field, and stores nothing', async () => {
      const before = (await t.rows()).length;
      expectErrorBody(
        await t
          .api()
          .post('/jobs')
          .send({ type: 'TEST_MAIL', payload: { to: 'not-an-email', subject: 'x' } }),
        400,
        ['payload.to'],
      );
      expectErrorBody(await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {}, priority: 'high' }), 400, ['priority']);
      expect((await t.rows()).length).toBe(before);
    });

    it('answers an unknown job with a 404 in the same shape', async () => {
      expectErrorBody(await t.api().get('/jobs/01a21385-6259-7000-9553-c7646c91d8f9'), 404);
    });

    it('cancels a waiting job and retries it', async () => {
      const job = (await t.api().post('/jobs').send({ type: 'TEST_RECORD', payload: {} }).expect(201)).body;
      expect((await t.api().post(`/jobs/${job.id}/cancel`).expect(200)).body.status).toBe(JobStatus.CANCELLED);
      expect(await t.statusOf(job.id)).toBe(JobStatus.CANCELLED);
      expect((await t.api().post(`/jobs/${job.id}/retry`).expect(200)).body.status).toBe(JobStatus.PENDING);
      expect(await t.statusOf(job.id)).toBe(JobStatus.PENDING);
    });

    it('refuses a body that is not valid UTF-8, malformed JSON and an oversized body, before anything is stored', async () => {
      const before = (await t.rows()).length;
      const invalid = Buffer.concat([
        Buffer.from('{"type":"TEST_RECORD","payload":{"note":"'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}}'),
      ]);
      expectErrorBody(await t.api().post('/jobs').set('content-type', 'application/json').serialize(asIs).send(invalid), 400, ['body']);
      expectErrorBody(await t.api().post('/jobs').set('content-type', 'application/json').send('{"type": "TEST_RECORD",'), 400, ['body']);
      const big = JSON.stringify({ type: 'TEST_RECORD', payload: { text: 'x'.repeat(BODY_LIMIT) } });
      expectErrorBody(await t.api().post('/jobs').set('content-type', 'application/json').send(big), 413);
      expect((await t.rows()).length).toBe(before);
    });

    it('reads application/*+json as JSON, and an empty JSON body as {}', async () => {
      const res = await t
        .api()
        .post('/jobs')
        .set('content-type', 'application/vnd.api+json')
        .send(JSON.stringify({ type: 'TEST_RECORD', payload: {} }));
      expect(res.status).toBe(201);
      expectErrorBody(await t.api().post('/jobs').set('content-type', 'application/json').send(''), 400, ['type']);
    });

    it('sends the security headers on every answer, errors included', async () => {
      for (const res of [await t.api().get('/health/live'), await t.api().get('/jobs/not-a-job')]) {
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      }
    });

    it('answers the health probes and the metrics', async () => {
      expect((await t.api().get('/health/live').expect(200)).body).toMatchObject({ status: 'ok' });
      await t.api().get('/health/ready').expect(200);
      const metrics = await t.api().get('/metrics').expect(200);
      expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
      expect(metrics.text).toContain('conveyor_');
    });

    it('serves the dashboard page and its files', async () => {
      const page = await t.api().get('/dashboard').expect(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('<html');
      const script = await t.api().get('/dashboard/app.js').expect(200);
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(script.headers['cache-control']).toBe('no-cache');
      expectErrorBody(await t.api().get('/dashboard/nothing.js'), 404);
      // Fastify matches paths strictly by default: no route has the trailing slash, so there is nothing to redirect.
      expect((await t.api().get('/dashboard/')).status).toBe(404);
    });

    it('serves the OpenAPI document and the Swagger UI with all its files, without @fastify/static', async () => {
      expect(() => require.resolve('@fastify/static')).toThrow();
      const doc = await t.api().get('/docs-json').expect(200);
      expect(doc.headers['content-type']).toMatch(/^application\/json/);
      expect(doc.body.paths).toHaveProperty('/jobs');
      const page = await t.api().get('/docs').expect(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      const files = [...page.text.matchAll(/\b(?:src|href)="(docs\/[^"]+)"/g)].map((m) => m[1]);
      expect(files).toEqual(expect.arrayContaining(['docs/swagger-ui.css', 'docs/swagger-ui-bundle.js', 'docs/swagger-ui-init.js']));
      for (const file of files) await t.api().get(`/${file}`).expect(200);
      expectErrorBody(await t.api().get('/docs/package.json'), 404);
    });
  });

  describe('with API keys and a rate limit', () => {
    const PRODUCER = 'fastify-producer-key-0123456789abcdef';
    const ADMIN = 'fastify-admin-key-0123456789abcdef0123';
    const MAX = 5;
    let t: RestTestApp;

    beforeAll(async () => {
      t = await createRestTestApp('fastify_keys', {
        platform: 'fastify',
        engine: { runWorkers: false },
        httpOptions: {
          apiKeys: [
            { role: 'producer', key: PRODUCER },
            { role: 'admin', key: ADMIN },
          ],
          rateLimit: { windowMs: 60_000, max: MAX },
        },
      });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('answers 401 with WWW-Authenticate without a key, 403 to a producer on an admin route', async () => {
      const missing = await t.api().get('/jobs');
      expectErrorBody(missing, 401);
      expect(missing.headers['www-authenticate']).toBe('Bearer realm="conveyor"');
      expect((await t.api().get('/jobs').set('Authorization', 'Bearer wrong-key')).headers['www-authenticate']).toContain('invalid_token');
      const job = (
        await t.api().post('/jobs').set('Authorization', `Bearer ${PRODUCER}`).send({ type: 'TEST_RECORD', payload: {} }).expect(201)
      ).body;
      expectErrorBody(await t.api().post(`/jobs/${job.id}/cancel`).set('Authorization', `Bearer ${PRODUCER}`), 403);
      expect(await t.statusOf(job.id)).toBe(JobStatus.PENDING);
      await t.api().post(`/jobs/${job.id}/cancel`).set('Authorization', `Bearer ${ADMIN}`).expect(200);
    });

    it('answers 429 with Retry-After past the limit of one key, and never limits health', async () => {
      let res = await t.api().get('/jobs').set('Authorization', `Bearer ${ADMIN}`);
      while (res.status === 200) res = await t.api().get('/jobs').set('Authorization', `Bearer ${ADMIN}`);
      expectErrorBody(res, 429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      await t.api().get('/health/live').expect(200);
    });
  });

  describe('with the database unreachable', () => {
    let schema: TestSchema;

    beforeAll(async () => {
      schema = await createTestSchema('fastify_outage');
    });

    afterAll(async () => {
      await schema?.drop();
    });

    it('answers 503 with Retry-After in the API shape, and readiness goes down while liveness stays', async () => {
      const base = process.env.CONVEYOR_TEST_DATABASE_URL!;
      const target = new URL(base);
      const proxy = await new TcpProxy(target.hostname, Number(target.port || 5432)).start();
      const t = await createTestApp({
        schema: schema.schema,
        url: proxy.urlFor(base),
        platform: 'fastify',
        engine: { runWorkers: false },
        providers: [NoopHandler],
        appName: 'fastify-outage',
        poolTimeoutMs: 500,
      });
      const submit = () => request(t.app.getHttpServer()).post('/jobs').send({ type: 'FASTIFY_NOOP', payload: {} });
      try {
        expect((await submit()).status).toBe(201);
        proxy.cut();
        const refused = await submit();
        expectErrorBody(refused, 503);
        expect(refused.headers['retry-after']).toBe('2');
        const ready = await waitFor(
          async () => {
            const res = await request(t.app.getHttpServer()).get('/health/ready');
            return res.status === 503 && res;
          },
          { message: 'readiness to go down' },
        );
        expect(ready.headers['retry-after']).toBe('2');
        expect(ready.body).toMatchObject({ status: 'error' });
        await request(t.app.getHttpServer()).get('/health/live').expect(200);
      } finally {
        await t.close();
        await proxy.stop();
      }
    });
  });
});
