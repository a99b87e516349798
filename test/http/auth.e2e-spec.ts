import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { JobStatus } from '@conveyor/core';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

const TYPE = 'AUTH_TEST';
const PRODUCER = `prod-${randomBytes(16).toString('hex')}`;
const PRODUCER_2 = `prod2-${randomBytes(16).toString('hex')}`;
const ADMIN = `adm-${randomBytes(16).toString('hex')}`;
const KEYS = [PRODUCER, PRODUCER_2, ADMIN];
const API_KEYS = [
  { role: 'producer' as const, key: PRODUCER },
  { role: 'producer' as const, key: PRODUCER_2 },
  { role: 'admin' as const, key: ADMIN },
];

const LOG_METHODS = ['log', 'error', 'warn', 'debug', 'verbose', 'fatal'] as const;

/**
 * Everything the process logs while the file runs: every Nest Logger call at any level (enabled or not)
 * and every byte written to stdout/stderr — the places a key must never show up.
 */
function captureLogs(): { text: () => string; calls: (method: (typeof LOG_METHODS)[number]) => string[]; restore: () => void } {
  const spies = LOG_METHODS.map((m) => jest.spyOn(Logger.prototype, m));
  const written: string[] = [];
  const streams = [process.stdout, process.stderr].map((stream) => {
    const original = stream.write.bind(stream);
    return jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      written.push(String(chunk));
      return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  });
  const argsOf = (spy: jest.SpyInstance) =>
    spy.mock.calls.map((args) =>
      args.map((a: unknown) => (a instanceof Error ? a.stack : typeof a === 'string' ? a : JSON.stringify(a))).join(' '),
    );
  return {
    text: () => [...spies.flatMap(argsOf), ...written].join('\n'),
    calls: (method) => argsOf(spies[LOG_METHODS.indexOf(method)]),
    restore: () => [...spies, ...streams].forEach((s) => s.mockRestore()),
  };
}

const errorShape = (statusCode: number, error: string) => ({ statusCode, error, message: expect.any(String) });

describe('REST API access control', () => {
  let schema: TestSchema;

  beforeAll(async () => {
    schema = await createTestSchema('http_auth');
  });

  afterAll(async () => {
    await schema?.drop();
  });

  describe('with API keys', () => {
    let t: TestApp;
    let logs: ReturnType<typeof captureLogs>;
    /** Every response of this block, headers and body, to prove no key is ever echoed. */
    const answers: string[] = [];

    async function call(method: 'get' | 'post', path: string, key?: string, body?: object): Promise<request.Response> {
      let req = request(t.app.getHttpServer())[method](path);
      if (key !== undefined) req = req.set('Authorization', `Bearer ${key}`);
      const res = await (body === undefined ? req : req.send(body));
      answers.push(`${JSON.stringify(res.headers)}\n${res.text}`);
      return res;
    }

    async function newJob(): Promise<string> {
      return (await t.jobs.enqueue(TYPE, { n: 1 })).id;
    }

    async function statusOf(id: string): Promise<string> {
      return (await t.sql.query<{ status: string }>(`SELECT status FROM ${t.jobsTable} WHERE id = $1`, [id])).rows[0].status;
    }

    beforeAll(async () => {
      logs = captureLogs();
      t = await createTestApp({
        schema: schema.schema,
        engine: { runWorkers: false, externalTypes: [TYPE] },
        httpOptions: { apiKeys: API_KEYS },
      });
    });

    afterAll(async () => {
      await t?.close();
      logs?.restore();
    });

    const producerRoutes = (id: string): Array<['get' | 'post', string, object?]> => [
      ['post', '/jobs', { type: TYPE, payload: {} }],
      ['post', '/jobs/batch', { jobs: [{ type: TYPE, payload: {} }] }],
      ['get', '/jobs'],
      ['get', `/jobs/${id}`],
      ['get', '/queues'],
    ];
    const adminRoutes = (id: string): Array<['get' | 'post', string, object?]> => [
      ['post', `/jobs/${id}/cancel`],
      ['post', `/jobs/${id}/retry`],
      ['post', `/jobs/${id}/run-now`],
      ['post', '/jobs/bulk/cancel', { ids: [id] }],
      ['post', '/jobs/bulk/retry', { ids: [id] }],
      ['post', '/jobs/bulk/delete', { ids: [id] }],
      ['post', '/queues/default/pause'],
      ['post', '/queues/default/resume'],
    ];

    it('answers 401 with WWW-Authenticate: Bearer to requests without a key, on every route', async () => {
      const id = await newJob();
      for (const [method, path, body] of [...producerRoutes(id), ...adminRoutes(id)]) {
        const res = await call(method, path, undefined, body);
        expect({ path, status: res.status }).toEqual({ path, status: 401 });
        expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="conveyor"$/);
        expect(res.body).toEqual(errorShape(401, 'Unauthorized'));
      }
      expect(await statusOf(id)).toBe(JobStatus.PENDING);
      const stored = await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`);
      expect(stored.rows[0].n).toBe(1);
    });

    it('answers 401 to an invalid key, a near miss, another scheme or an empty bearer token', async () => {
      const id = await newJob();
      const headers = [
        `Bearer ${PRODUCER}x`,
        `Bearer ${ADMIN.slice(0, -1)}`,
        `Bearer ${ADMIN.toUpperCase()}`,
        `Basic ${ADMIN}`,
        'Bearer',
        'Bearer    ',
        ADMIN,
      ];
      for (const header of headers) {
        const res = await request(t.app.getHttpServer()).post(`/jobs/${id}/cancel`).set('Authorization', header);
        answers.push(`${JSON.stringify(res.headers)}\n${res.text}`);
        expect({ header: header.length, status: res.status }).toEqual({ header: header.length, status: 401 });
        expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="conveyor"/);
        expect(res.body).toEqual(errorShape(401, 'Unauthorized'));
      }
      const wrong = await call('get', '/queues', 'not-a-key');
      expect(wrong.headers['www-authenticate']).toBe('Bearer realm="conveyor", error="invalid_token"');
      expect(await statusOf(id)).toBe(JobStatus.PENDING);
    });

    it('lets producer keys submit and read', async () => {
      const id = await newJob();
      for (const key of [PRODUCER, PRODUCER_2]) {
        const created = await call('post', '/jobs', key, { type: TYPE, payload: { from: 'producer' } });
        expect(created.status).toBe(201);
        expect(await statusOf(created.body.id)).toBe(JobStatus.PENDING);
        const batch = await call('post', '/jobs/batch', key, {
          jobs: [
            { type: TYPE, payload: { i: 1 } },
            { type: TYPE, payload: { i: 2 } },
          ],
        });
        expect(batch.status).toBe(201);
        expect(batch.body.jobs).toHaveLength(2);
        expect((await call('get', `/jobs/${id}`, key)).body).toMatchObject({ id, status: JobStatus.PENDING });
        expect((await call('get', '/jobs', key)).status).toBe(200);
        expect((await call('get', '/queues', key)).status).toBe(200);
      }
    });

    it('answers 403 to producer keys on admin routes, and changes nothing', async () => {
      const id = await newJob();
      for (const [method, path, body] of adminRoutes(id)) {
        const res = await call(method, path, PRODUCER, body);
        expect({ path, status: res.status }).toEqual({ path, status: 403 });
        expect(res.body).toEqual(errorShape(403, 'Forbidden'));
        expect(res.body.message).toContain('admin');
      }
      expect(await statusOf(id)).toBe(JobStatus.PENDING);
      const paused = await t.sql.query(`SELECT count(*)::int AS n FROM ${t.db.queuesTable} WHERE paused`);
      expect(paused.rows[0].n).toBe(0);
    });

    it('lets the admin key do everything', async () => {
      const id = await newJob();
      for (const [method, path, body] of producerRoutes(id)) {
        expect({ path, status: (await call(method, path, ADMIN, body)).status }).toEqual({ path, status: method === 'post' ? 201 : 200 });
      }
      expect((await call('post', `/jobs/${id}/cancel`, ADMIN)).status).toBe(200);
      expect(await statusOf(id)).toBe(JobStatus.CANCELLED);
      expect((await call('post', `/jobs/${id}/retry`, ADMIN)).status).toBe(200);
      expect(await statusOf(id)).toBe(JobStatus.PENDING);
      expect((await call('post', '/queues/default/pause', ADMIN)).body).toEqual({ name: 'default', paused: true });
      expect((await call('post', '/queues/default/resume', ADMIN)).body).toEqual({ name: 'default', paused: false });
    });

    it('tells each key its role at GET /access, and a wrong key that it is wrong', async () => {
      expect((await call('get', '/access', PRODUCER)).body).toEqual({ role: 'producer', keysRequired: true });
      expect((await call('get', '/access', ADMIN)).body).toEqual({ role: 'admin', keysRequired: true });
      expect((await call('get', '/access', `${ADMIN}x`)).status).toBe(401);
      expect((await call('get', '/access')).status).toBe(401);
    });

    it('keeps health endpoints open', async () => {
      expect((await call('get', '/health/live')).status).toBe(200);
      expect((await call('get', '/health/ready')).status).toBe(200);
      expect((await call('get', '/health/live', 'not-a-key')).status).toBe(200);
    });

    it('sends security headers on every answer, errors included', async () => {
      for (const res of [await call('get', '/health/live'), await call('get', '/jobs'), await call('get', '/jobs', PRODUCER)]) {
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
        expect(res.headers['content-security-policy']).toContain("default-src 'self'");
        expect(res.headers['x-powered-by']).toBeUndefined();
      }
    });

    it('never puts a key in a response or a log line', async () => {
      expect(answers.length).toBeGreaterThan(30);
      const logged = logs.text();
      // The capture works: Nest's route mapping went through the spied Logger.
      expect(logged).toContain('/jobs/:id/cancel');
      for (const key of KEYS) {
        for (const text of answers) expect(text.includes(key)).toBe(false);
        expect(logged.includes(key)).toBe(false);
      }
      // Keys configured: no dev-mode warning.
      expect(logs.calls('warn').join('\n')).not.toMatch(/WITHOUT AUTHENTICATION/);
    });
  });

  describe('rate limit', () => {
    let t: TestApp;
    const MAX = 5;

    beforeAll(async () => {
      t = await createTestApp({
        schema: schema.schema,
        engine: { runWorkers: false, externalTypes: [TYPE] },
        httpOptions: { apiKeys: API_KEYS, rateLimit: { windowMs: 60_000, max: MAX } },
      });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('answers 429 with Retry-After past max requests of one key, while other keys go on', async () => {
      const server = t.app.getHttpServer();
      for (let i = 0; i < MAX; i++)
        expect((await request(server).get('/queues').set('Authorization', `Bearer ${PRODUCER}`)).status).toBe(200);
      const limited = await request(server)
        .post('/jobs')
        .set('Authorization', `Bearer ${PRODUCER}`)
        .send({ type: TYPE, payload: { limited: true } });
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual(errorShape(429, 'Too Many Requests'));
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // Refused before it reached the service: nothing was stored.
      expect((await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable} WHERE payload ? 'limited'`)).rows[0].n).toBe(0);

      expect((await request(server).get('/queues').set('Authorization', `Bearer ${PRODUCER_2}`)).status).toBe(200);
      expect((await request(server).get('/queues').set('Authorization', `Bearer ${ADMIN}`)).status).toBe(200);
    });

    it('counts requests without a valid key per client address, so guessing keys is limited too', async () => {
      const server = t.app.getHttpServer();
      const statuses: number[] = [];
      for (let i = 0; i <= MAX; i++) statuses.push((await request(server).get('/queues').set('Authorization', `Bearer guess-${i}`)).status);
      expect(statuses).toEqual([...Array(MAX).fill(401), 429]);
    });

    it('counts an IPv6 client by its /64, so moving to another address of its network does not escape the limit', async () => {
      const server = t.app.getHttpServer();
      const express = t.app.getHttpAdapter().getInstance();
      // As behind a proxy that reports the client in X-Forwarded-For, the set-up the guard's doc asks for.
      express.set('trust proxy', true);
      try {
        const guess = (from: string) =>
          request(server).get('/queues').set('X-Forwarded-For', from).set('Authorization', `Bearer guess-${from}`);
        const statuses: number[] = [];
        for (let i = 1; i <= MAX + 1; i++) statuses.push((await guess(`2001:db8:5:6::${i.toString(16)}`)).status);
        expect(statuses).toEqual([...Array(MAX).fill(401), 429]);
        // Another /64 is another client.
        expect((await guess('2001:db8:5:7::1')).status).toBe(401);
      } finally {
        express.set('trust proxy', false);
      }
    });

    it('never limits health endpoints', async () => {
      const server = t.app.getHttpServer();
      for (let i = 0; i < MAX * 3; i++) expect((await request(server).get('/health/live')).status).toBe(200);
    });
  });

  describe('without API keys (dev mode)', () => {
    let t: TestApp;
    let logs: ReturnType<typeof captureLogs>;

    beforeAll(async () => {
      logs = captureLogs();
      t = await createTestApp({ schema: schema.schema, engine: { runWorkers: false, externalTypes: [TYPE] } });
    });

    afterAll(async () => {
      await t?.close();
      logs?.restore();
    });

    it('warns at start-up that the API runs without authentication, and how to turn it on', () => {
      const warning = logs.calls('warn').find((line) => line.includes('WITHOUT AUTHENTICATION'));
      expect(warning).toBeDefined();
      expect(warning).toContain('API_KEYS="producer:<key>,admin:<key>"');
    });

    it('answers GET /access with admin and no keys required', async () => {
      const res = await request(t.app.getHttpServer()).get('/access');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ role: 'admin', keysRequired: false });
    });

    it('leaves every route open', async () => {
      const server = t.app.getHttpServer();
      const created = await request(server)
        .post('/jobs')
        .send({ type: TYPE, payload: { dev: true } });
      expect(created.status).toBe(201);
      expect((await request(server).post(`/jobs/${created.body.id}/cancel`)).status).toBe(200);
      expect((await request(server).get('/jobs').set('Authorization', 'Bearer anything')).status).toBe(200);
    });
  });
});
