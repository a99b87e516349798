import { LiveWatchDetector } from '@conveyor/core/observation/live/live-watch-detector.service';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { GatedHandler, openGate } from './support/gated-handler';
import { openSse, SseClient } from './support/sse-client';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

/**
 * Progress reports, from a handler (JobContext.progress) and from an HTTP worker (POST /jobs/:id/progress): stored
 * on the job, in its REST view, streamed to subscribers of another instance, and refused once the lease is lost.
 */
describe('Job progress', () => {
  let schema: TestSchema;
  let a: TestApp;
  let b: TestApp;
  let stream: SseClient;

  const stored = async (id: string) =>
    (await b.sql.query<{ progress: unknown; status: string }>(`SELECT progress, status FROM ${b.jobsTable} WHERE id = $1`, [id])).rows[0];
  const post = (path: string, body: unknown) =>
    fetch(`${b.baseUrl}${path}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });

  beforeAll(async () => {
    schema = await createTestSchema('live_progress');
    const engine = { externalTypes: ['EXT_PROGRESS'] };
    a = await createTestApp({ schema: schema.schema, providers: [GatedHandler], listen: true, engine: { ...engine, runWorkers: false } });
    b = await createTestApp({ schema: schema.schema, providers: [GatedHandler], listen: true, engine });
    stream = await openSse(`${a.baseUrl}/events`);
    await waitFor(() => b.app.get(LiveWatchDetector).watched, { message: "B to see A's watch lease" });
  });

  afterAll(async () => {
    stream?.close();
    await Promise.all([a?.close(), b?.close()]);
    await schema?.drop();
  });

  it("stores a handler's report, shows it in the job's view and streams it", async () => {
    const job = await b.jobs.enqueue('GATED', { progress: { percent: 25, data: { step: 'fetching' } } });
    const event = await stream.waitForJob((e) => e.id === job.id && e.progress !== null, 'the progress event');
    expect(event).toMatchObject({ status: 'RUNNING', progress: { percent: 25, data: { step: 'fetching' } } });
    expect(await stored(job.id)).toEqual({ status: 'RUNNING', progress: { percent: 25, data: { step: 'fetching' } } });
    const view = (await (await fetch(`${a.baseUrl}/jobs/${job.id}`)).json()) as { progress: unknown };
    expect(view.progress).toEqual({ percent: 25, data: { step: 'fetching' } });
    openGate(job.id);
    await stream.waitForJob((e) => e.id === job.id && e.status === 'COMPLETED');
  });

  it('rejects a bad report in the handler without storing it', async () => {
    const job = await b.jobs.enqueue('GATED', { progress: { percent: 140 } });
    // The handler's progress() rejects, so the attempt fails and is retried; nothing was stored.
    await waitFor(async () => (await stored(job.id)).status === 'RETRYING' || (await stored(job.id)).status === 'RUNNING');
    await waitFor(async () => {
      const errors = (await b.sql.query<{ errors: Array<{ error: string }> }>(`SELECT errors FROM ${b.jobsTable} WHERE id = $1`, [job.id]))
        .rows[0].errors;
      return errors.some((e) => e.error.includes('percent'));
    });
    expect((await stored(job.id)).progress).toBeNull();
  });

  it("stores an HTTP worker's report under its lease, streams it, and refuses it once the lease is gone", async () => {
    const job = await b.jobs.enqueue('EXT_PROGRESS', {});
    const claim = (await (await post('/queues/default/claim', { workerId: 'w1', max: 1 })).json()) as {
      jobs: Array<{ id: string; leaseToken: string }>;
    };
    const { leaseToken } = claim.jobs.find((j) => j.id === job.id)!;

    const ok = await post(`/jobs/${job.id}/progress`, { leaseToken, percent: 60, data: { uploaded: 3 } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ percent: 60, data: { uploaded: 3 } });
    expect((await stored(job.id)).progress).toEqual({ percent: 60, data: { uploaded: 3 } });
    await stream.waitForJob((e) => e.id === job.id && e.progress?.percent === 60, 'the worker progress event');

    const onlyData = await post(`/jobs/${job.id}/progress`, { leaseToken, data: { uploaded: 4 } });
    expect(onlyData.status).toBe(200);
    expect((await stored(job.id)).progress).toEqual({ percent: null, data: { uploaded: 4 } });

    const tooBig = await post(`/jobs/${job.id}/progress`, { leaseToken, data: { blob: 'x'.repeat(2000) } });
    expect(tooBig.status).toBe(400);
    const body = (await tooBig.json()) as { details: Array<{ field: string }> };
    expect(body.details.map((d) => d.field)).toEqual(['data']);
    // jsonb cannot hold a NUL character: a 400 naming where it is, not the database's error.
    const nul = await post(`/jobs/${job.id}/progress`, { leaseToken, data: { step: 'a\u0000b' } });
    expect(nul.status).toBe(400);
    expect(((await nul.json()) as { details: Array<{ field: string }> }).details.map((d) => d.field)).toEqual(['data.step']);
    const badPercent = await post(`/jobs/${job.id}/progress`, { leaseToken, percent: 101 });
    expect(badPercent.status).toBe(400);
    const empty = await post(`/jobs/${job.id}/progress`, { leaseToken });
    expect(empty.status).toBe(400);

    const wrongToken = await post(`/jobs/${job.id}/progress`, { leaseToken: '00000000-0000-4000-8000-000000000000', percent: 99 });
    expect(wrongToken.status).toBe(409);
    expect((await post(`/jobs/${job.id}/complete`, { leaseToken, result: null })).status).toBe(200);
    const afterComplete = await post(`/jobs/${job.id}/progress`, { leaseToken, percent: 100 });
    expect(afterComplete.status).toBe(409);
    expect(await stored(job.id)).toEqual({ status: 'COMPLETED', progress: { percent: null, data: { uploaded: 4 } } });
  });

  it('clears the progress when a new attempt starts', async () => {
    const job = await b.jobs.enqueue('EXT_PROGRESS', {});
    const claim = (await (await post('/queues/default/claim', { workerId: 'w1', max: 1 })).json()) as {
      jobs: Array<{ id: string; leaseToken: string }>;
    };
    const { leaseToken } = claim.jobs.find((j) => j.id === job.id)!;
    await post(`/jobs/${job.id}/progress`, { leaseToken, percent: 10 });
    expect(
      (await post(`/jobs/${job.id}/fail`, { leaseToken, error: 'again', retryAt: new Date(Date.now() - 1000).toISOString() })).status,
    ).toBe(200);
    await post('/queues/default/claim', { workerId: 'w2', max: 1 });
    expect(await stored(job.id)).toEqual({ status: 'RUNNING', progress: null });
  });
});
