import { Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { Job, JobContext, JobHandler, JobHandlerHost, JobStatus } from '@conveyor/core';
import { WorkerPool } from '@conveyor/core/consumer/worker-pool.service';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** What the cut-off app's handler saw: the jobs it started, and the attempts whose signal fired. */
const seen = { started: [] as string[], aborted: [] as string[] };

/** Holds its attempt until the attempt's signal fires: a handler still busy when its worker is cut off. */
@Injectable()
@JobHandler('LAPSE_GATE')
class GateHandler extends JobHandlerHost {
  async handle(job: Job, context: JobContext): Promise<void> {
    seen.started.push(job.id);
    await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
    seen.aborted.push(job.id);
  }
}

/** Completes at once: the instance that takes the jobs over. */
@Injectable()
@JobHandler('LAPSE_GATE')
class QuickHandler extends JobHandlerHost {
  async handle(): Promise<void> {}
}

/**
 * A worker cut off from the database while it holds claimed jobs — one running, the rest buffered — must start none
 * of them once their leases may have lapsed by its own clock: by then they may be rescued and running elsewhere.
 */
describe('a worker whose leases lapse while it is cut off', () => {
  const base = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let admin: Pool;
  let proxy: TcpProxy;
  let cutOff: TestApp;
  let other: TestApp | undefined;

  beforeAll(async () => {
    schema = await createTestSchema('lapse');
    admin = new Pool({ connectionString: base, max: 2 });
    const target = new URL(base);
    proxy = await new TcpProxy(target.hostname, Number(target.port || 5432)).start();
  });

  afterAll(async () => {
    await other?.close();
    await cutOff?.close();
    await proxy?.stop();
    await admin?.end();
    await schema?.drop();
  });

  it('drops its buffered jobs and aborts its running one instead of starting them late; another worker runs them once', async () => {
    const LEASE_MS = 1500;
    cutOff = await createTestApp({
      schema: schema.schema,
      url: proxy.urlFor(base),
      providers: [GateHandler],
      appName: 'lapse-cut',
      engine: { concurrency: 1, prefetch: 5, leaseMs: LEASE_MS, heartbeatIntervalMs: 300, listen: false },
    });
    await cutOff.jobs.enqueueMany(Array.from({ length: 4 }, () => ({ type: 'LAPSE_GATE', payload: {} })));
    await waitFor(() => seen.started.length === 1 && cutOff.app.get(WorkerPool).stats().buffered === 3, {
      message: 'one job running and three buffered',
    });

    proxy.cut();
    const cutAt = Date.now();
    await waitFor(() => seen.aborted.length === 1, {
      timeoutMs: 3 * LEASE_MS,
      message: 'the running attempt to be aborted once its lease may have lapsed',
    });
    expect(Date.now() - cutAt).toBeLessThan(LEASE_MS + 1000);
    await waitFor(
      () => {
        const stats = cutOff.app.get(WorkerPool).stats();
        return stats.running === 0 && stats.buffered === 0;
      },
      { message: 'the buffered jobs to be dropped' },
    );
    expect(seen.started).toHaveLength(1);

    // Another instance rescues the four jobs and runs them; the cut-off one, back online, wrote nothing for them.
    other = await createTestApp({
      schema: schema.schema,
      providers: [QuickHandler],
      appName: 'lapse-other',
      engine: { leaseMs: LEASE_MS, heartbeatIntervalMs: 300 },
    });
    proxy.restore();
    const { rows } = await waitFor(
      async () => {
        const res = await admin.query<{ status: string; errors: { kind: string }[] }>(`SELECT status, errors FROM ${other!.jobsTable}`);
        return res.rows.length === 4 && res.rows.every((r) => r.status === JobStatus.COMPLETED) ? res : null;
      },
      { timeoutMs: 20_000, message: 'the four jobs to complete on the other instance' },
    );
    expect(rows.every((r) => r.errors.length === 1 && r.errors[0].kind === 'lease-expired')).toBe(true);
    expect(seen.started).toHaveLength(1);
  });
});
