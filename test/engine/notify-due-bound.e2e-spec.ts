import { Client, Pool } from 'pg';
import { MAX_ANNOUNCED_DUE_TIMES, parseDueNotice } from '@conveyor/core/storage/statements/due-notice.codec';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/**
 * The insert NOTIFY's payload says when a claim sees the rows (migration 0004, storage/statements/due-notice.codec):
 * a scheduled row's run_at rounded up to the millisecond, rows due at once as `ready:` and their run_at rounded down.
 * Checked against the row's run_at in microseconds, over enough inserts that their microseconds are anything.
 */
describe('the insert NOTIFY announces a due time to claim against', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let t: TestApp;
  let observer: Client;
  const heard: string[] = [];

  beforeAll(async () => {
    schema = await createTestSchema('notifydue');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 1 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    const providers = [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler];
    t = await createTestApp({ schema: schema.schema, providers, engine: { runWorkers: false }, http: false });
    observer = new Client({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL });
    observer.on('notification', (msg) => heard.push(msg.payload ?? ''));
    await observer.connect();
    await observer.query(`LISTEN "${t.db.channel}"`);
  });

  afterAll(async () => {
    await observer?.end();
    await t?.close();
    await recorder?.end();
    await schema?.drop();
  });

  /** Enqueues one job with `options` and returns its NOTIFY's notice and its run_at in µs. */
  const announced = async (options: { delayMs?: number; idempotencyKey?: string; runAt?: Date }) => {
    const before = heard.length;
    const job = await t.jobs.enqueue('TEST_RECORD', {}, options);
    await waitFor(() => heard.length > before, { message: 'the insert’s NOTIFY' });
    const { rows } = await t.sql.query<{ us: string }>(
      `SELECT (extract(epoch FROM run_at) * 1000000)::bigint::text AS us FROM ${schema.schema}.conveyor_jobs WHERE id = $1`,
      [job.id],
    );
    const notice = parseDueNotice(heard[before])!;
    return { ready: notice.ready, payloadUs: BigInt(notice.at) * 1000n, runAtUs: BigInt(rows[0].us) };
  };

  it('a scheduled row: its run_at rounded up to the millisecond', async () => {
    for (let i = 0; i < 20; i++) {
      const { ready, payloadUs, runAtUs } = await announced({ delayMs: 60_000 + i });
      expect(ready).toBe(false);
      expect(payloadUs).toBeGreaterThanOrEqual(runAtUs);
      expect(payloadUs - runAtUs).toBeLessThan(1000n);
    }
  });

  it('a scheduled row at a whole millisecond (runAt from a client): that millisecond', async () => {
    const runAt = new Date(Date.now() + 60_000);
    const { ready, payloadUs, runAtUs } = await announced({ runAt });
    expect(ready).toBe(false);
    expect(payloadUs).toBe(BigInt(runAt.getTime()) * 1000n);
    expect(runAtUs).toBe(payloadUs);
  });

  it('a row due at once: ready, with its run_at rounded down', async () => {
    for (let i = 0; i < 20; i++) {
      const { ready, payloadUs, runAtUs } = await announced({ idempotencyKey: `notify-due-${Date.now()}-${i}` });
      expect(ready).toBe(true);
      expect(payloadUs).toBeLessThanOrEqual(runAtUs);
      expect(runAtUs - payloadUs).toBeLessThan(1000n);
    }
  });

  it("a batch's scheduled rows: each due time after the first once, rounded up, ascending, the earliest of them only", async () => {
    // Two rows due at once, then more distinct due times than a notice holds, some twice, in no order.
    const delays = [0, 0, ...Array.from({ length: MAX_ANNOUNCED_DUE_TIMES + 40 }, (_, i) => 60_000 + ((i * 37) % 120) * 11)];
    const before = heard.length;
    const jobs = await t.jobs.enqueueMany(delays.map((delayMs) => ({ type: 'TEST_RECORD', payload: {}, delayMs })));
    await waitFor(() => heard.length > before, { message: 'the insert’s NOTIFY' });
    const notice = parseDueNotice(heard[before])!;
    expect(notice.ready).toBe(true);

    const { rows } = await t.sql.query<{ us: string }>(
      `SELECT DISTINCT (extract(epoch FROM run_at) * 1000000)::bigint::text AS us FROM ${schema.schema}.conveyor_jobs
       WHERE id = ANY($1) AND status = 'SCHEDULED'`,
      [jobs.map((j) => j.id)],
    );
    const dueMs = [...new Set(rows.map((r) => Number((BigInt(r.us) + 999n) / 1000n)))].sort((a, b) => a - b);
    expect(dueMs.length).toBeGreaterThan(MAX_ANNOUNCED_DUE_TIMES);
    expect(notice.later).toEqual(dueMs.slice(0, MAX_ANNOUNCED_DUE_TIMES));
  });
});
