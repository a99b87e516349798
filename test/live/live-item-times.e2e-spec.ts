import { LiveWatchDetector } from '@conveyor/core/observation/live/live-watch-detector.service';
import { waitFor } from '../support/wait-for';
import { openGate } from './support/gated-handler';
import { LivePair, startLivePair } from './support/live-pair';
import { JobEventData } from './support/sse-client';

/**
 * The events of claims and outcomes are built by their writers, with the time each write gave the row (the claim's
 * `started_at`, the outcome's `updated_at`, in µs): so an event's id must be the one a catch-up reads from the table
 * for the same state. LivePair: A streams, B runs the jobs with each claim strategy.
 */
describe.each(['skip-locked', 'optimistic'] as const)('Live events of claims and outcomes (%s claims)', (claimStrategy) => {
  let pair: LivePair;
  let b: LivePair['b'];
  const open: LivePair['open'] = (path, headers) => pair.open(path, headers);
  const submit: LivePair['submit'] = (body) => pair.submit(body);

  beforeAll(async () => {
    pair = await startLivePair('live_item_times', { engine: { claimStrategy } });
    b = pair.b;
  });

  afterAll(async () => {
    await pair?.close();
  });

  it('announces a claim and an outcome with the times they gave the row: the event ids a catch-up gives for the same states', async () => {
    const stream = await open('/events?queue=times');
    await waitFor(() => b.app.get(LiveWatchDetector).watched, { message: "B to see A's watch lease" });
    const plain = await submit({ type: 'GATED', queue: 'times', payload: {} });
    const reporting = await submit({ type: 'GATED', queue: 'times', payload: { progress: { percent: 70 } } });
    const eventId = (id: string, status: string) =>
      stream.events.find((e) => {
        if (e.event !== 'job') return false;
        const job = JSON.parse(e.data) as JobEventData;
        return job.id === id && job.status === status;
      })?.id;
    const rowTimes = async (id: string) => {
      const { rows } = await b.sql.query<{ started: string; updated: string }>(
        `SELECT (extract(epoch FROM started_at) * 1000000)::bigint::text AS started,
                (extract(epoch FROM updated_at) * 1000000)::bigint::text AS updated
         FROM ${b.jobsTable} WHERE id = $1`,
        [id],
      );
      return rows[0];
    };

    await stream.waitForJob((e) => e.id === plain.id && e.status === 'RUNNING', 'the claim');
    expect(eventId(plain.id, 'RUNNING')).toBe(`${(await rowTimes(plain.id)).started}.${plain.id}`);
    openGate(plain.id);
    openGate(reporting.id);
    const completed = await stream.waitForJob((e) => e.id === plain.id && e.status === 'COMPLETED', 'the completion');
    expect(completed).toMatchObject({ queue: 'times', type: 'GATED', progress: null });
    const { updated } = await rowTimes(plain.id);
    expect(eventId(plain.id, 'COMPLETED')).toBe(`${updated}.${plain.id}`);
    // The same state read from the table: a per-job stream starts with the job's current state.
    const current = await open(`/jobs/${plain.id}/events`);
    await current.waitForJob((e) => e.status === 'COMPLETED', 'the current state');
    expect(current.events.find((e) => e.event === 'job')?.id).toBe(`${updated}.${plain.id}`);

    // A handler that reported progress: its completion carries what the row holds.
    const reported = await stream.waitForJob((e) => e.id === reporting.id && e.status === 'COMPLETED', 'the other completion');
    expect(reported.progress).toMatchObject({ percent: 70 });
  });
});
