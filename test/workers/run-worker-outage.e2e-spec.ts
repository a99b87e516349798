import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from 'pg';
import { JobStatus } from '@conveyor/core';
import { UNREACHABLE_MAX_BACKOFF_MS } from '../../libs/client/src/worker/claim-backoff';
import { findFreePort } from '../../libs/embedded-postgres/src/free-port';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { HttpWorkerPayload } from './support/http-worker-payload';
import { HttpWorkerProcess, spawnHttpWorker } from './support/spawn-http-worker';

const TYPE = 'EXT_OUTAGE';
/**
 * How long the service stays dead before it is started again (its start adds a few seconds). Under the old backoff
 * (400 ms doubling to 30 s, no jitter) the worker's claims fell about 25 s and 51 s after the kill: a service back
 * after 28-40 s waited 10-23 s for it.
 */
const OUTAGE_MS = 26_000;
/** How long the service stays dead after a handler returned, before it is started again. */
const OUTCOME_OUTAGE_MS = 8_000;
/** Slack for a claim's round trip to a service that just started, on a small CI machine. */
const SLACK_MS = 3_000;

/**
 * The service (apps/server, a process of its own) killed under an idle `runWorker` process and started again on the
 * same port: the worker claims a job submitted then within its backoff's cap of the service answering again, and it
 * did not flood the dead port meanwhile. The service runs no in-process workers, so the job is the HTTP worker's.
 */
describe('runWorker outliving the service', () => {
  let schema: TestSchema;
  let outbox: string;
  let db: Client;
  let service: ServiceProcess | undefined;
  let worker: HttpWorkerProcess | undefined;
  let env: Record<string, string>;

  const submit = (baseUrl: string, queue: string): Promise<string> => submitJob(baseUrl, queue, {});
  const submitJob = async (baseUrl: string, queue: string, payload: HttpWorkerPayload): Promise<string> => {
    const res = await fetch(`${baseUrl}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: TYPE, queue, payload }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  const jobRow = async (id: string) =>
    (
      await db.query<{ status: string; attempts: number; result: { handledBy: string } | null }>(
        `SELECT status, attempts, result FROM conveyor_jobs WHERE id = $1`,
        [id],
      )
    ).rows[0];

  beforeAll(async () => {
    schema = await createTestSchema('run_worker_outage');
    outbox = mkdtempSync(join(tmpdir(), 'conveyor-outage-outbox-'));
    db = new Client({ connectionString: schema.url });
    await db.connect();
    env = {
      DATABASE_URL: process.env.CONVEYOR_TEST_DATABASE_URL!,
      DATABASE_SCHEMA: schema.schema,
      OUTBOX_DIR: outbox,
      RUN_WORKERS: 'false',
      EXTERNAL_TYPES: TYPE,
      PORT: String(await findFreePort()),
    };
  });

  afterAll(async () => {
    if (worker && worker.proc.exitCode === null && worker.proc.signalCode === null) worker.proc.kill('SIGKILL');
    await worker?.exited;
    await service?.stop();
    await db?.end();
    await schema?.drop();
    rmSync(outbox, { recursive: true, force: true });
  });

  it('claims again within 5 s of the service coming back after a long outage, asking only every few seconds meanwhile', async () => {
    const queue = 'outage';
    service = await startServiceProcess({ env });
    worker = spawnHttpWorker({ baseUrl: service.baseUrl, queue, workerId: 'outage-worker' });
    await worker.ready;
    const before = await submit(service.baseUrl, queue);
    await waitFor(async () => (await jobRow(before)).status === JobStatus.COMPLETED, { message: 'a job done before the outage' });

    service.proc.kill('SIGKILL');
    await service.exited;
    // Claims only: a report in flight when the service died is retried on its own schedule.
    const failedClaims = () => worker!.events().filter((e) => e.event === 'error' && String(e.message).includes('/claim')).length;
    const failedBefore = failedClaims();
    // The outage's length is what is tested: nothing to wait for but time.
    await delay(OUTAGE_MS);
    const failedDuringOutage = failedClaims() - failedBefore;
    service = await startServiceProcess({ env });
    const readyAt = Date.now();

    const id = await submit(service.baseUrl, queue);
    const started = await worker.event((e) => e.event === 'started' && e.id === id);
    const healMs = worker.at(started) - readyAt;
    await waitFor(async () => (await jobRow(id)).status === JobStatus.COMPLETED, {
      message: 'the job submitted after the outage to complete',
    });

    expect(await jobRow(id)).toMatchObject({ attempts: 1, result: { handledBy: 'outage-worker' } });
    expect({ healMs, withinCap: healMs < UNREACHABLE_MAX_BACKOFF_MS + SLACK_MS }).toMatchObject({ withinCap: true });
    // Backing off: four claims while the ceiling grows to the cap (3 s), then at most one per 2.5 s (a worker that did
    // not back off would have sent thousands).
    expect(failedDuringOutage).toBeGreaterThan(3);
    expect(failedDuringOutage).toBeLessThanOrEqual(5 + Math.ceil((OUTAGE_MS - 3_000) / 2_500));
  }, 120_000);

  it('writes an outcome its handler reached while the service was away, once the service is back within the lease', async () => {
    const queue = 'outcome-through-restart';
    if (!service || service.proc.exitCode !== null || service.proc.signalCode !== null) service = await startServiceProcess({ env });
    worker?.proc.kill('SIGKILL');
    await worker?.exited;
    worker = spawnHttpWorker({ baseUrl: service.baseUrl, queue, workerId: 'restart-worker', leaseMs: 60_000 });
    await worker.ready;
    const id = await submitJob(service.baseUrl, queue, { sleepMs: 1_000 });
    await worker.event((e) => e.event === 'started' && e.id === id);

    service.proc.kill('SIGKILL');
    await service.exited;
    await worker.event((e) => e.event === 'returned' && e.id === id);
    // Longer than the few tries a report used to get (6.2 s), well within the 60 s lease: nothing to wait for but time.
    await delay(OUTCOME_OUTAGE_MS);
    service = await startServiceProcess({ env });

    await waitFor(async () => (await jobRow(id)).status === JobStatus.COMPLETED, { message: 'the outcome to be written' });
    expect(await jobRow(id)).toMatchObject({ attempts: 1, result: { handledBy: 'restart-worker' } });
    expect(worker.events().filter((e) => e.event === 'started' && e.id === id)).toHaveLength(1);
  }, 120_000);
});
