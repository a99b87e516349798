import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { openSse } from './support/sse-client';

/** Long names make each event a few hundred bytes, so a stalled reader's buffers fill with fewer jobs. */
const TYPE = `SLOW_READER_${'T'.repeat(150)}`;
const QUEUE = `slow-${'q'.repeat(150)}`;

const metric = async (app: TestApp, name: string) =>
  Number(new RegExp(`^${name} (\\d+)`, 'm').exec(await (await fetch(`${app.baseUrl}/metrics`)).text())?.[1] ?? NaN);

/**
 * A subscriber that stops reading is dropped once the server holds more than `live.maxBufferBytes` of its events for
 * a while, never buffered without limit; the drop is counted in /metrics. A reader that keeps up is not dropped,
 * though a batch of events may overfill its buffer for a moment.
 */
describe('Live events: a slow reader', () => {
  let schema: TestSchema;
  let app: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('live_slow');
    app = await createTestApp({
      schema: schema.schema,
      listen: true,
      engine: { runWorkers: false, externalTypes: [TYPE] },
      httpOptions: { live: { maxBufferBytes: 64 * 1024, pingIntervalMs: 200 } },
    });
  });

  afterAll(async () => {
    await app?.close();
    await schema?.drop();
  });

  it('is dropped and counted, while a reader that keeps up stays', async () => {
    const stalled = await openSse(`${app.baseUrl}/events`);
    const reading = await openSse(`${app.baseUrl}/events?status=SCHEDULED`);
    stalled.pause();
    expect(await metric(app, 'conveyor_live_connections')).toBe(2);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    let batches = 0;
    await waitFor(
      async () => {
        batches++;
        await app.jobs.enqueueMany(Array.from({ length: 100 }, () => ({ type: TYPE, queue: QUEUE, payload: {}, runAt: later })));
        return (await metric(app, 'conveyor_live_slow_readers_dropped_total')) === 1;
      },
      { timeoutMs: 40_000, intervalMs: 20, message: 'the stalled reader to be dropped' },
    );
    expect(await metric(app, 'conveyor_live_connections')).toBe(1);
    // The one that kept reading has every event so far, and its pings.
    const total = Number((await app.sql.query(`SELECT count(*) FROM ${app.jobsTable}`)).rows[0].count);
    await waitFor(() => reading.jobs().length >= total, { message: `the reading stream to have all ${total} events` });
    expect(reading.ended).toBe(false);
    await waitFor(() => reading.comments.includes('ping'), { message: 'a ping' });
    expect(batches).toBeGreaterThan(0);
    stalled.close();
    reading.close();
  }, 90_000);

  it('ends its open streams when the app closes, so closing does not wait on them', async () => {
    const open = await openSse(`${app.baseUrl}/events`);
    await waitFor(async () => (await metric(app, 'conveyor_live_connections')) === 1);
    const started = Date.now();
    await app.close();
    await waitFor(() => open.ended, { message: 'the stream to end' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
