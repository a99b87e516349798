import { LiveWatchDetector } from '@conveyor/core/observation/live/live-watch-detector.service';
import { waitFor } from '../support/wait-for';
import { openGate } from './support/gated-handler';
import { asAdmin, asProducer, LivePair, startLivePair } from './support/live-pair';

/**
 * Live events across instances (LivePair: A streams, B writes), A on Express and on Fastify.
 */
describe.each(['express', 'fastify'] as const)('Live events (GET /events) across instances, served on %s', (platform) => {
  let pair: LivePair;
  let a: LivePair['a'];
  let b: LivePair['b'];
  const open: LivePair['open'] = (path, headers) => pair.open(path, headers);
  const submit: LivePair['submit'] = (body) => pair.submit(body);

  beforeAll(async () => {
    pair = await startLivePair('live_events', { platform });
    ({ a, b } = pair);
  });

  afterEach(() => pair.closeStreams());

  afterAll(async () => {
    await pair?.close();
  });

  it("streams another instance's insert, claim, progress and completion of a job, with event ids to resume from", async () => {
    const stream = await open('/events');
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    // Until B's writers see A's new watch lease (a second or two), a subscriber gets states by catch-up only: each
    // job's latest, not every step. From then on, every step.
    await waitFor(() => b.app.get(LiveWatchDetector).watched, { message: "B to see A's watch lease" });
    const job = await submit({ type: 'GATED', payload: { progress: { percent: 40, data: { step: 'halfway' } } } });

    await stream.waitForJob((e) => e.id === job.id && e.status === 'PENDING', 'the insert');
    const running = await stream.waitForJob((e) => e.id === job.id && e.status === 'RUNNING' && e.progress !== null, 'the progress');
    expect(running).toMatchObject({ type: 'GATED', queue: 'default', progress: { percent: 40, data: { step: 'halfway' } } });
    openGate(job.id);
    await stream.waitForJob((e) => e.id === job.id && e.status === 'COMPLETED', 'the completion');

    const ids = stream.events.filter((e) => e.event === 'job').map((e) => e.id ?? '');
    for (const id of ids) expect(id).toMatch(new RegExp(`^\\d+\\.[0-9a-f-]{36}$`));
  });

  it("streams an operator's cancel on another instance, and only what the filters ask for", async () => {
    const all = await open('/events');
    const byQueue = await open('/events?queue=live-b');
    // The type whatever its case, as GET /jobs searches it.
    const cancelled = await open('/events?status=CANCELLED&type=gated');
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const inA = await submit({ type: 'GATED', queue: 'live-a', runAt: later, payload: {} });
    const inB = await submit({ type: 'GATED', queue: 'live-b', runAt: later, payload: {} });
    const res = await fetch(`${b.baseUrl}/jobs/${inB.id}/cancel`, { method: 'POST', headers: asAdmin });
    expect(res.status).toBe(200);

    await all.waitForJob((e) => e.id === inB.id && e.status === 'CANCELLED', 'the cancel');
    await all.waitForJob((e) => e.id === inA.id && e.status === 'SCHEDULED', 'the scheduled insert');
    await byQueue.waitForJob((e) => e.id === inB.id && e.status === 'CANCELLED');
    await cancelled.waitForJob((e) => e.id === inB.id);
    expect(byQueue.jobs().every((e) => e.queue === 'live-b')).toBe(true);
    expect(cancelled.jobs().every((e) => e.status === 'CANCELLED' && e.type === 'GATED')).toBe(true);
  });

  it("listens under a connection name of its own (`<app>:live`), apart from the workers' `<app>:listener`", async () => {
    await open('/events');
    const names = await waitFor(
      async () => {
        const { rows } = await a.sql.query<{ name: string }>(`SELECT application_name AS name FROM pg_stat_activity WHERE query LIKE $1`, [
          `LISTEN "${a.db.liveChannel}"%`,
        ]);
        return rows.length > 0 && rows.map((r) => r.name);
      },
      { message: 'the live LISTEN connection' },
    );
    expect(names).toEqual(['conveyor-test:live']);
  });

  it('answers 400 naming a bad filter', async () => {
    const res = await fetch(`${a.baseUrl}/events?status=LOST`, { headers: asProducer });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('status');
    // A live event carries no idempotency key: `key`, a filter of GET /jobs, is refused here rather than ignored.
    const byKey = await fetch(`${a.baseUrl}/events?key=order-1`, { headers: asProducer });
    expect(byKey.status).toBe(400);
    expect(((await byKey.json()) as { details: Array<{ field: string }> }).details.map((d) => d.field)).toEqual(['key']);
  });

  it('answers 400 naming a Last-Event-ID that is no event id of this API, instead of resuming without the gap', async () => {
    const job = '01a21f7a-743c-7000-82a2-9104ee3a3b00';
    for (const lastEventId of ['garbage', `1.5.${job}`, `99999999999999999999.${job}`, '1795642038441570']) {
      const res = await fetch(`${a.baseUrl}/events`, { headers: { ...asProducer, 'Last-Event-ID': lastEventId } });
      expect({ lastEventId, status: res.status }).toEqual({ lastEventId, status: 400 });
      expect(((await res.json()) as { details: Array<{ field: string }> }).details.map((d) => d.field)).toEqual(['Last-Event-ID']);
    }
  });

  it('resumes from Last-Event-ID with what changed while the subscriber was away', async () => {
    // Another subscriber keeps A's watch lease, so the resumed stream's catch-up is the Last-Event-ID one alone.
    await open('/events?queue=nothing');
    await waitFor(() => b.app.get(LiveWatchDetector).watched, { message: "B to see A's watch lease" });
    const first = await open('/events?queue=resume');
    const seen = await submit({ type: 'GATED', queue: 'resume', runAt: new Date(Date.now() + 3_600_000).toISOString(), payload: {} });
    await first.waitForJob((e) => e.id === seen.id);
    const lastId = first.events.filter((e) => e.event === 'job').at(-1)!.id!;
    first.close();

    const missed = await submit({ type: 'GATED', queue: 'resume', runAt: new Date(Date.now() + 3_600_000).toISOString(), payload: {} });
    await fetch(`${b.baseUrl}/jobs/${missed.id}/cancel`, { method: 'POST', headers: asAdmin });

    const resumed = await open('/events?queue=resume', { ...asProducer, 'Last-Event-ID': lastId });
    await resumed.waitForJob((e) => e.id === missed.id && e.status === 'CANCELLED', 'the missed cancel');
    // The catch-up matches the type whatever its case, as the live filter does.
    const byType = await open('/events?queue=resume&type=gated', { ...asProducer, 'Last-Event-ID': lastId });
    await byType.waitForJob((e) => e.id === missed.id && e.status === 'CANCELLED', 'the missed cancel, by type');
  });

  it("streams one job's events from its current state (GET /jobs/:id/events); 404 for an unknown job", async () => {
    const job = await submit({ type: 'GATED', payload: {} });
    await waitFor(async () => (await b.sql.query(`SELECT 1 FROM ${b.jobsTable} WHERE id = $1 AND status = 'RUNNING'`, [job.id])).rowCount);
    const stream = await open(`/jobs/${job.id}/events`);
    await stream.waitForJob((e) => e.id === job.id && e.status === 'RUNNING', 'the current state');
    openGate(job.id);
    await stream.waitForJob((e) => e.id === job.id && e.status === 'COMPLETED', 'the completion');
    expect(stream.jobs().every((e) => e.id === job.id)).toBe(true);

    const missing = await fetch(`${a.baseUrl}/jobs/0190a0b0-0000-7000-8000-000000000000/events`, { headers: asProducer });
    expect(missing.status).toBe(404);
  });

  it("ends a job's stream once the job is deleted (its next open is a 404)", async () => {
    const job = await submit({ type: 'GATED', payload: {}, delayMs: 3_600_000 });
    const stream = await open(`/jobs/${job.id}/events`);
    await stream.waitForJob((e) => e.id === job.id && e.status === 'SCHEDULED', 'the current state');
    await b.jobs.cancel(job.id);
    await b.jobs.purge(job.id);
    await stream.waitForJob((e) => e.id === job.id && e.status === 'DELETED', 'the deletion');
    await waitFor(() => stream.ended, { message: 'the stream to end' });
    expect((await fetch(`${a.baseUrl}/jobs/${job.id}/events`, { headers: asProducer })).status).toBe(404);
  });

  it('needs an API key (401 without one), and any role may subscribe', async () => {
    const keyless = await open('/events', {});
    expect(keyless.status).toBe(401);
    const wrong = await open('/events', { Authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    const producer = await open('/events', asProducer);
    expect(producer.status).toBe(200);
  });

  it('counts open streams and events sent in /metrics', async () => {
    const stream = await open('/events');
    await submit({ type: 'GATED', queue: 'metrics', runAt: new Date(Date.now() + 3_600_000).toISOString(), payload: {} });
    await stream.waitForJob((e) => e.queue === 'metrics');
    const text = await (await fetch(`${a.baseUrl}/metrics`)).text();
    expect(Number(/^conveyor_live_connections (\d+)/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(/^conveyor_live_events_sent_total (\d+)/m.exec(text)?.[1])).toBeGreaterThan(0);
  });
});
