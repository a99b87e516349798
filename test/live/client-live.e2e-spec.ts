import { ConveyorClient, runWorker } from '@conveyor/client';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { GatedHandler, openGate } from './support/gated-handler';

/** A fetch that records what the client asked for, and can pretend the live route does not exist or fails. */
function recordingFetch(live: 'served' | 'missing' | 'unreachable') {
  const calls: string[] = [];
  const impl: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    calls.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    if (url.pathname.endsWith('/events')) {
      if (live === 'missing') {
        const body = JSON.stringify({ statusCode: 404, error: 'Not Found', message: `Cannot GET ${url.pathname}` });
        return new Response(body, { status: 404, headers: { 'content-type': 'application/json' } });
      }
      if (live === 'unreachable') throw new TypeError('fetch failed');
    }
    return fetch(input, init);
  };
  return { calls, impl };
}

/** `ConveyorClient.waitFor` follows the job's live events, and polls when a server has none; workers report progress. */
describe('The client and live events', () => {
  let schema: TestSchema;
  let app: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('live_client');
    app = await createTestApp({
      schema: schema.schema,
      providers: [GatedHandler],
      listen: true,
      engine: { externalTypes: ['EXT_CLIENT'] },
    });
  });

  afterAll(async () => {
    await app?.close();
    await schema?.drop();
  });

  const isRunning = async (id: string) =>
    (await app.sql.query(`SELECT 1 FROM ${app.jobsTable} WHERE id = $1 AND status = 'RUNNING'`, [id])).rowCount === 1;

  it('waitFor resolves from the event stream, reading the job once at the end instead of polling', async () => {
    const { calls, impl } = recordingFetch('served');
    const client = new ConveyorClient({ baseUrl: app.baseUrl, fetch: impl });
    const job = await app.jobs.enqueue('GATED', {});
    await waitFor(() => isRunning(job.id));
    const done = client.waitFor(job.id, { intervalMs: 10, timeoutMs: 20_000 });
    await waitFor(() => calls.length > 0);
    // The job runs on until the stream has sent its first event (the job's current state): a polling client would
    // have asked every 10 ms meanwhile.
    await waitFor(async () => {
      const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
      return /^conveyor_live_connections 1/m.test(text) && Number(/^conveyor_live_events_sent_total (\d+)/m.exec(text)?.[1]) >= 1;
    });
    openGate(job.id);
    const finished = await done;
    expect(finished).toMatchObject({ id: job.id, status: 'COMPLETED', result: { done: true } });
    expect(calls).toEqual([`GET /jobs/${job.id}/events`, `GET /jobs/${job.id}`]);
  });

  it.each(['missing', 'unreachable'] as const)('waitFor polls when the live route is %s', async (live) => {
    const { calls, impl } = recordingFetch(live);
    const client = new ConveyorClient({ baseUrl: app.baseUrl, fetch: impl });
    const job = await app.jobs.enqueue('GATED', {});
    await waitFor(() => isRunning(job.id));
    const done = client.waitFor(job.id, { intervalMs: 20, timeoutMs: 20_000 });
    await waitFor(() => calls.filter((c) => c === `GET /jobs/${job.id}`).length >= 2, { message: 'the client to poll' });
    openGate(job.id);
    expect(await done).toMatchObject({ id: job.id, status: 'COMPLETED' });
    expect(calls[0]).toBe(`GET /jobs/${job.id}/events`);
  });

  it("stores a runWorker handler's progress report", async () => {
    const job = await app.jobs.enqueue('EXT_CLIENT', {});
    const seen: unknown[] = [];
    const worker = runWorker(
      'default',
      async (claimed, ctx) => {
        await ctx.progress({ percent: 75, data: { phase: 'upload' } });
        seen.push(claimed.id);
        return { ok: true };
      },
      { baseUrl: app.baseUrl, types: ['EXT_CLIENT'] },
    );
    try {
      await waitFor(async () => {
        const { rows } = await app.sql.query(`SELECT status, progress FROM ${app.jobsTable} WHERE id = $1`, [job.id]);
        return rows[0].status === 'COMPLETED' ? rows[0] : null;
      });
      const { rows } = await app.sql.query(`SELECT progress FROM ${app.jobsTable} WHERE id = $1`, [job.id]);
      expect(rows[0].progress).toEqual({ percent: 75, data: { phase: 'upload' } });
    } finally {
      await worker.stop();
    }
  });
});
