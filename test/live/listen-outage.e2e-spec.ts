import { WATCH_VISIBLE_AFTER_MS } from '@conveyor/core/observation/live-feed/live-watch-lease.service';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { openSse } from './support/sse-client';

/**
 * The live LISTEN connection is lost while subscribers are connected (only it: it goes through a proxy, the pool
 * does not, so writers go on announcing). Once it is back, every subscriber catches up on what it missed, also one
 * that had no event yet, and however many there are: the app has a small pool that answers "exhausted" quickly.
 */
describe('Live events: the LISTEN connection lost while subscribers watch', () => {
  const base = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let proxy: TcpProxy;
  let app: TestApp;

  const listening = async () =>
    (await app.sql.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = 'live-outage:live' AND query LIKE 'LISTEN%'`)).rows
      .length === 1;

  beforeAll(async () => {
    schema = await createTestSchema('live_listen_outage');
    const target = new URL(base);
    proxy = await new TcpProxy(target.hostname, Number(target.port || 5432)).start();
    app = await createTestApp({
      schema: schema.schema,
      appName: 'live-outage',
      poolSize: 2,
      poolTimeoutMs: 300,
      listen: true,
      engine: { runWorkers: false, externalTypes: ['OUTAGE'], listenUrl: proxy.urlFor(base) },
    });
  });

  afterAll(async () => {
    proxy?.restore();
    await app?.close();
    await proxy?.stop();
    await schema?.drop();
  });

  it('sends every subscriber the changes made while it was away, once it is back', async () => {
    const quiet = await openSse(`${app.baseUrl}/events?queue=quiet`);
    const busy = await openSse(`${app.baseUrl}/events?queue=busy`);
    const opened = Date.now();
    await waitFor(listening, { message: 'the live LISTEN connection' });
    const before = await app.jobs.enqueue('OUTAGE', {}, { queue: 'busy' });
    await busy.waitForJob((e) => e.id === before.id, 'the busy stream to have an event before the outage');
    // Past the catch-up of a new watch lease, which would send the quiet stream the job below whatever happens next.
    await waitFor(() => Date.now() > opened + WATCH_VISIBLE_AFTER_MS + 1_000, { timeoutMs: WATCH_VISIBLE_AFTER_MS + 5_000 });

    proxy.cut();
    await waitFor(async () => !(await listening()), { message: 'the LISTEN connection to be gone' });
    const quietJob = await app.jobs.enqueue('OUTAGE', {}, { queue: 'quiet' });
    const busyJob = await app.jobs.enqueue('OUTAGE', {}, { queue: 'busy' });
    proxy.restore();

    await waitFor(listening, { message: 'the LISTEN connection back' });
    await busy.waitForJob((e) => e.id === busyJob.id, "the busy stream to catch up on the outage's change");
    await quiet.waitForJob((e) => e.id === quietJob.id, "the quiet stream, which had no event yet, to catch up on the outage's change");
    expect(quiet.jobs().map((e) => e.id)).toEqual([quietJob.id]);
    quiet.close();
    busy.close();
  });

  it('catches up every one of many streams, not only those that got a pooled connection in time', async () => {
    // A jobs table of some size, so that each catch-up read takes a while.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    for (let i = 0; i < 5; i++) {
      await app.jobs.enqueueMany(Array.from({ length: 10_000 }, () => ({ type: 'OUTAGE', payload: {}, queue: 'bulk', runAt: later })));
    }
    const queues = Array.from({ length: 80 }, (_, i) => `herd-${i}`);
    const streams = await Promise.all(queues.map((q) => openSse(`${app.baseUrl}/events?queue=${q}`)));
    const opened = Date.now();
    await waitFor(listening, { message: 'the live LISTEN connection' });
    await waitFor(() => Date.now() > opened + WATCH_VISIBLE_AFTER_MS + 1_000, { timeoutMs: WATCH_VISIBLE_AFTER_MS + 5_000 });

    proxy.cut();
    await waitFor(async () => !(await listening()), { message: 'the LISTEN connection to be gone' });
    const missed = await app.jobs.enqueueMany(queues.map((queue) => ({ type: 'OUTAGE', payload: {}, queue })));
    proxy.restore();

    await waitFor(() => streams.filter((s, i) => s.jobs().some((e) => e.id === missed[i].id)).length === queues.length, {
      timeoutMs: 30_000,
      message: `all ${queues.length} streams to catch up on the outage's change`,
    });
    for (const s of streams) s.close();
  }, 60_000);

  it("ends a job's stream whose job was deleted while it was away", async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const job = await app.jobs.enqueue('OUTAGE', {}, { queue: 'doomed', runAt: later });
    const stream = await openSse(`${app.baseUrl}/jobs/${job.id}/events`);
    const opened = Date.now();
    await stream.waitForJob((e) => e.id === job.id && e.status === 'SCHEDULED', 'the current state');
    await waitFor(listening, { message: 'the live LISTEN connection' });
    // Past the catch-up of a new watch lease, which would otherwise be what finds the job gone.
    await waitFor(() => Date.now() > opened + WATCH_VISIBLE_AFTER_MS + 1_000, { timeoutMs: WATCH_VISIBLE_AFTER_MS + 5_000 });

    proxy.cut();
    await waitFor(async () => !(await listening()), { message: 'the LISTEN connection to be gone' });
    await app.jobs.cancel(job.id);
    await app.jobs.purge(job.id);
    expect(stream.ended).toBe(false);
    proxy.restore();

    // Once the connection is back, the catch-up finds the job gone and ends its stream (and, the last one, the connection).
    await waitFor(() => stream.ended, { message: "the job's stream to end" });
    expect(stream.jobs().map((e) => e.status)).not.toContain('DELETED');
  });
});
