import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const DRAIN_MS = 3_000;

/**
 * The termination sequence of the service (apps/server), as Kubernetes sees it: on SIGTERM readiness turns 503 at
 * once while the port keeps serving — and the worker keeps working — for SHUTDOWN_DRAIN_MS, so endpoints stop
 * routing to the pod before anything is refused; then the port closes and the process exits 0.
 */
describe('termination: readiness down, drain, then close', () => {
  let schema: TestSchema;
  let outbox: string;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    schema = await createTestSchema('health_termination');
    outbox = mkdtempSync(join(tmpdir(), 'conveyor-termination-outbox-'));
  });

  afterAll(async () => {
    await service?.stop();
    await schema?.drop();
    rmSync(outbox, { recursive: true, force: true });
  });

  it('answers 503 on readiness at once, keeps serving and working for the drain delay, then closes the port and exits 0', async () => {
    service = await startServiceProcess({
      env: {
        DATABASE_URL: process.env.CONVEYOR_TEST_DATABASE_URL!,
        DATABASE_SCHEMA: schema.schema,
        OUTBOX_DIR: outbox,
        POLL_INTERVAL_MS: '200',
        SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      },
    });
    const url = (path: string) => `${service!.baseUrl}${path}`;
    await waitFor(async () => (await fetch(url('/health/ready'))).status === 200, { message: 'the service to be ready' });

    const signalledAt = Date.now();
    service.proc.kill('SIGTERM');

    // Not ready at once, in terminus format, saying why.
    const notReady = await waitFor(
      async () => {
        const res = await fetch(url('/health/ready'));
        return res.status === 503 && ((await res.json()) as { error: Record<string, { message?: string }> });
      },
      { timeoutMs: DRAIN_MS, message: 'readiness to turn 503' },
    );
    expect(notReady.error.worker).toEqual({ status: 'down', message: 'shutting down' });

    // Meanwhile everything else still works: liveness, the API, and the worker, which runs a job submitted now.
    expect((await fetch(url('/health/live'))).status).toBe(200);
    const submitted = await fetch(url('/jobs'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'SEND_EMAIL', payload: { to: 'drain@example.test', subject: 'sent while draining' } }),
    });
    expect(submitted.status).toBe(201);
    const { id } = (await submitted.json()) as { id: string };
    await waitFor(async () => ((await (await fetch(url(`/jobs/${id}`))).json()) as { status: string }).status === 'COMPLETED', {
      timeoutMs: DRAIN_MS,
      message: 'the job submitted during the drain to complete',
    });
    expect((await fetch(url('/health/ready'))).status).toBe(503);
    const stillServingAt = Date.now();
    expect(stillServingAt - signalledAt).toBeLessThan(DRAIN_MS);

    // Then the listener closes — not before the drain delay — and the process exits cleanly.
    const closedAt = await waitFor(
      async () =>
        (await fetch(url('/health/live')).then(
          () => false,
          () => true,
        )) && Date.now(),
      {
        timeoutMs: DRAIN_MS + 15_000,
        intervalMs: 50,
        message: 'the port to close',
      },
    );
    expect(closedAt - signalledAt).toBeGreaterThanOrEqual(DRAIN_MS);
    expect(await service.exited).toBe(0);
  }, 60_000);
});
