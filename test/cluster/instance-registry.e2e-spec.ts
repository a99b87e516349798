import type { Instance } from '@conveyor/client';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import request from 'supertest';
import { JobHandler, JobHandlerHost } from '@conveyor/core';
import { ControlledHandler, HandlerControls } from '../http/support/controlled.handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';

const PRODUCER = `prod-${randomBytes(16).toString('hex')}`;
/** Every instance heartbeats each 500 ms and stays listed 3 intervals (1.5 s) after its last heartbeat. */
const MAINTENANCE_MS = 500;
const LEASE_MS = 3 * MAINTENANCE_MS;

@JobHandler('INSTANCE_REPORT', { queue: 'reports' })
class ReportHandler extends JobHandlerHost {
  handle(): void {}
}

/**
 * The instance registry with three instances on one schema: a worker app in this process (A), a worker in a process
 * of its own (B) and an API-only app (C). `GET /instances` lists each with what it is and does; the leader is the
 * one the leadership row names; a cleanly closed instance leaves the list at once, a SIGKILLed one once its lease
 * ran out, and the leader's maintenance then deletes its row.
 */
describe('instance registry: GET /instances', () => {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let a: TestApp;
  let b: SpawnedWorker;
  let c: TestApp | undefined;
  let controls: HandlerControls;

  const instances = async () =>
    (await request(a.app.getHttpServer()).get('/instances').set('Authorization', `Bearer ${PRODUCER}`).expect(200)).body
      .instances as Instance[];
  const byId = async () => new Map((await instances()).map((i) => [i.id, i]));
  const storedIds = async () =>
    (await a.sql.query<{ id: string }>(`SELECT id FROM ${schema.schema}.conveyor_instances ORDER BY id`)).rows.map((r) => r.id);
  const leaderHolder = async () =>
    (await a.sql.query<{ holder: string }>(`SELECT holder FROM ${schema.schema}.conveyor_leadership WHERE expires_at > now()`)).rows[0]
      ?.holder;

  beforeAll(async () => {
    schema = await createTestSchema('instance_registry');
    a = await createTestApp({
      schema: schema.schema,
      providers: [HandlerControls, ControlledHandler, ReportHandler],
      appName: 'instance-a',
      engine: { workerId: 'instance-a', concurrency: 3, maintenanceIntervalMs: MAINTENANCE_MS },
      httpOptions: { apiKeys: [{ role: 'producer', key: PRODUCER }] },
    });
    controls = a.app.get(HandlerControls);
    b = spawnWorker({
      url,
      schema: schema.schema,
      appName: 'instance-b',
      engine: { workerId: 'instance-b', concurrency: 2, maintenanceIntervalMs: MAINTENANCE_MS, pollIntervalMs: 100 },
    });
    await b.ready;
    c = await createTestApp({
      schema: schema.schema,
      http: false,
      appName: 'instance-c',
      engine: { workerId: 'instance-c', runWorkers: false, maintenanceIntervalMs: MAINTENANCE_MS },
    });
  });

  afterAll(async () => {
    controls?.releaseAll();
    if (b && b.proc.exitCode === null && b.proc.signalCode === null) b.proc.kill('SIGKILL');
    await b?.exited;
    await c?.close();
    await a?.close();
    await schema?.drop();
  });

  it('lists every running instance with its host, version, concurrency, running handlers, queues and leadership', async () => {
    controls.hold('busy');
    const job = await a.jobs.enqueue('TEST_CONTROLLED', { name: 'busy' });
    await waitFor(async () => (await byId()).get('instance-a')?.running === 1, { message: 'instance A to report its running job' });
    const listed = await byId();
    expect([...listed.keys()].sort()).toEqual(['instance-a', 'instance-b', 'instance-c']);

    expect(listed.get('instance-a')).toMatchObject({
      host: hostname(),
      pid: process.pid,
      version: '0.1.0',
      runsWorkers: true,
      concurrency: 3,
      running: 1,
      queues: ['default', 'reports'],
      types: ['INSTANCE_REPORT', 'TEST_CONTROLLED'],
    });
    expect(listed.get('instance-b')).toMatchObject({
      host: hostname(),
      pid: b.proc.pid,
      runsWorkers: true,
      concurrency: 2,
      running: 0,
      queues: ['default'],
      types: ['TEST_RECORD'],
    });
    expect(listed.get('instance-c')).toMatchObject({ runsWorkers: false, concurrency: 0, running: 0, queues: [], types: [] });

    for (const i of listed.values()) {
      expect(Date.parse(i.startedAt)).toBeLessThanOrEqual(Date.parse(i.lastSeen) + 1000);
      expect(Date.parse(i.expiresAt) - Date.parse(i.lastSeen)).toBe(LEASE_MS);
    }
    // Exactly one leader: the one the leadership row names.
    const holder = await waitFor(leaderHolder, { message: 'a maintenance leader' });
    await waitFor(async () => {
      const leaders = (await instances()).filter((i) => i.leader).map((i) => i.id);
      return leaders.length === 1 && leaders[0] === (await leaderHolder());
    });
    expect(['instance-a', 'instance-b', 'instance-c']).toContain(holder);

    controls.release('busy');
    await waitFor(
      async () => (await a.sql.query(`SELECT status FROM ${a.jobsTable} WHERE id = $1`, [job.id])).rows[0].status === 'COMPLETED',
    );
  });

  it('a cleanly closed instance leaves the list and the table at once', async () => {
    await c!.close();
    c = undefined;
    expect((await instances()).map((i) => i.id).sort()).toEqual(['instance-a', 'instance-b']);
    expect(await storedIds()).toEqual(['instance-a', 'instance-b']);
  });

  it('a SIGKILLed instance leaves the list once its lease ran out, and the leader deletes its row', async () => {
    b.proc.kill('SIGKILL');
    const killedAt = Date.now();
    await b.exited;
    await waitFor(async () => !(await byId()).has('instance-b'), { timeoutMs: 10_000, message: 'instance B to leave the list' });
    const goneAfterMs = Date.now() - killedAt;
    // Listed until its lease (from its last heartbeat) ran out: no longer than one lease after the kill, plus slack.
    expect(goneAfterMs).toBeLessThan(LEASE_MS + 2000);
    await waitFor(async () => (await storedIds()).join() === 'instance-a', { timeoutMs: 10_000, message: "the leader to delete B's row" });
    // Whoever led, instance A leads now (B's term ran out if it was B).
    await waitFor(async () => (await instances()).find((i) => i.id === 'instance-a')?.leader === true, { timeoutMs: 10_000 });
  });
});
