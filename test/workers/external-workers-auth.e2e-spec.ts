import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { JobStatus } from '@conveyor/core';
import { expectErrorBody } from '../http/support/error-body.assertions';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

const TYPE = 'EXT_AUTH';
const PRODUCER = `prod-${randomBytes(16).toString('hex')}`;
const WORKER = `work-${randomBytes(16).toString('hex')}`;
const ADMIN = `adm-${randomBytes(16).toString('hex')}`;

/** The worker routes with API keys configured: they need a `worker` (or `admin`) key. */
describe('external worker routes: access control', () => {
  let schema: TestSchema;
  let t: TestApp;

  const call = (path: string, key: string | undefined, body: object) => {
    const req = request(t.app.getHttpServer()).post(path);
    return (key === undefined ? req : req.set('Authorization', `Bearer ${key}`)).send(body);
  };
  const row = async (id: string) =>
    (
      await t.sql.query<{ status: string; lease_token: string | null }>(`SELECT status, lease_token FROM ${t.jobsTable} WHERE id = $1`, [
        id,
      ])
    ).rows[0];
  /** Every worker route, for one job and token. */
  const routes = (id: string, leaseToken: string): Array<[string, object]> => [
    [`/queues/auth/claim`, { workerId: 'w', max: 5 }],
    [`/jobs/${id}/heartbeat`, { leaseToken }],
    [`/jobs/${id}/complete`, { leaseToken, result: 1 }],
    [`/jobs/${id}/fail`, { leaseToken, error: 'x' }],
  ];

  beforeAll(async () => {
    schema = await createTestSchema('ext_workers_auth');
    t = await createTestApp({
      schema: schema.schema,
      engine: { runWorkers: false, externalTypes: [TYPE] },
      httpOptions: {
        apiKeys: [
          { role: 'producer', key: PRODUCER },
          { role: 'worker', key: WORKER },
          { role: 'admin', key: ADMIN },
        ],
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  it('answers 401 without a key and 403 to a producer key, on every worker route, and claims nothing', async () => {
    const id = (await t.jobs.enqueue(TYPE, {}, { queue: 'auth' })).id;
    for (const [path, body] of routes(id, randomUUID())) {
      expectErrorBody(await call(path, undefined, body), 401);
      expectErrorBody(await call(path, 'not-a-key', body), 401);
      const forbidden = await call(path, PRODUCER, body);
      expectErrorBody(forbidden, 403);
      expect(forbidden.body.message).toContain('worker role');
    }
    expect(await row(id)).toEqual({ status: JobStatus.PENDING, lease_token: null });
  });

  it('lets a worker key claim, heartbeat and complete; it may submit and read but not steer', async () => {
    const submitted = await call('/jobs', WORKER, { type: TYPE, payload: { n: 1 }, queue: 'auth-worker' }).expect(201);
    const id = submitted.body.id as string;
    await request(t.app.getHttpServer()).get(`/jobs/${id}`).set('Authorization', `Bearer ${WORKER}`).expect(200);
    expectErrorBody(await call(`/queues/auth-worker/pause`, WORKER, {}), 403);

    const claimed = await call('/queues/auth-worker/claim', WORKER, { workerId: 'w', max: 5 }).expect(200);
    expect(claimed.body.jobs.map((j: { id: string }) => j.id)).toEqual([id]);
    const leaseToken = claimed.body.jobs[0].leaseToken as string;
    await call(`/jobs/${id}/heartbeat`, WORKER, { leaseToken }).expect(200);
    await call(`/jobs/${id}/complete`, WORKER, { leaseToken, result: { ok: true } }).expect(200);
    expect(await row(id)).toEqual({ status: JobStatus.COMPLETED, lease_token: null });
  });

  it('lets an admin key work jobs too', async () => {
    const id = (await t.jobs.enqueue(TYPE, {}, { queue: 'auth-admin' })).id;
    const claimed = await call('/queues/auth-admin/claim', ADMIN, { workerId: 'admin-run' }).expect(200);
    const leaseToken = claimed.body.jobs[0].leaseToken as string;
    await call(`/jobs/${id}/fail`, ADMIN, { leaseToken, error: 'nope', permanent: true }).expect(200);
    expect(await row(id)).toEqual({ status: JobStatus.DEAD, lease_token: null });
  });
});
