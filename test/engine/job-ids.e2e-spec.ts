import { Pool } from 'pg';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/**
 * Job ids are UUID version 7: the first 48 bits are Unix milliseconds. The submitting process makes them
 * (jobs/job-id.ts); a row inserted by hand gets one from the column default (`conveyor_uuid_v7()`).
 */
describe('job ids', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('jobids');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 1 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    t = await createTestApp({
      schema: schema.schema,
      http: false,
      engine: { runWorkers: false },
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
    });
  });

  afterAll(async () => {
    await t?.close();
    await recorder?.end();
    await schema?.drop();
  });

  it('are version-7 UUIDs carrying their creation time, ordered across inserts', async () => {
    const first = await t.jobs.enqueueMany(Array.from({ length: 50 }, (_, i) => ({ type: 'TEST_RECORD', payload: { i } })));
    const firstMillis = Math.max(...first.map((j) => idMillis(j.id)));
    // Ids within one millisecond are random; wait until the database clock has left the first batch's.
    await waitFor(
      async () =>
        (await t.sql.query<{ ms: string }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms')).rows[0].ms >
        String(firstMillis),
      {
        message: 'the database clock to pass the first batch',
      },
    );
    const second = await t.jobs.enqueueMany([{ type: 'TEST_RECORD', payload: { later: true } }]);

    for (const job of [...first, ...second]) {
      expect(job.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Math.abs(idMillis(job.id) - job.createdAt.getTime())).toBeLessThan(5_000);
    }
    expect(new Set(first.map((j) => j.id)).size).toBe(50);
    for (const job of first) expect(second[0].id > job.id).toBe(true);
    // Within a batch the ids follow the request order, as seq does.
    const bySeq = [...first].sort((a, b) => Number(a.seq) - Number(b.seq));
    expect(bySeq.map((j) => j.payload)).toEqual(first.map((_, i) => ({ i })));
    expect(bySeq.map((j) => j.id)).toEqual([...first.map((j) => j.id)].sort());
  });

  it('what enqueueMany returns is the stored row (the insert sends back only what PostgreSQL decided)', async () => {
    const returned = await t.jobs.enqueueMany([
      { type: 'TEST_RECORD', payload: { a: 1, nested: { b: [1, 'two', null] } } },
      { type: 'TEST_RECORD', payload: { later: true }, delayMs: 60_000, priority: -3, maxAttempts: 2, queue: 'ids' },
      { type: 'TEST_RECORD', payload: { keyed: true }, idempotencyKey: 'ids-1', uniqueKey: 'ids-u' },
    ]);
    for (const job of returned) expect(await t.jobs.get(job.id)).toEqual(job);
    expect(returned.map((j) => j.status)).toEqual(['PENDING', 'SCHEDULED', 'PENDING']);
  });

  it('a batch without keys comes back as stored: seq in request order, due and scheduled rows, past and future run times', async () => {
    const past = new Date(Date.now() - 3_600_000);
    const future = new Date(Date.now() + 3_600_000);
    const returned = await t.jobs.enqueueMany([
      { type: 'TEST_RECORD', payload: { n: 1 } },
      { type: 'TEST_RECORD', payload: { n: 2 }, delayMs: 60_000 },
      { type: 'TEST_RECORD', payload: { n: 3 }, runAt: past },
      { type: 'TEST_RECORD', payload: { n: 4 }, runAt: future, priority: 5 },
      { type: 'TEST_RECORD', payload: { n: 5 }, delayMs: 0, queue: 'ids' },
    ]);
    for (const job of returned) expect(await t.jobs.get(job.id)).toEqual(job);
    expect(returned.map((j) => j.status)).toEqual(['PENDING', 'SCHEDULED', 'PENDING', 'SCHEDULED', 'PENDING']);
    expect(returned[2].runAt).toEqual(past);
    expect(returned[3].runAt).toEqual(future);
    const seqs = returned.map((j) => Number(j.seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('a row inserted without an id gets a version-7 one from the column default', async () => {
    const { rows } = await t.sql.query<{ id: string }>(
      `INSERT INTO "${schema.schema}".conveyor_jobs (type, payload) VALUES ('TEST_RECORD', '{}') RETURNING id`,
    );
    expect(rows[0].id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

/** The Unix milliseconds in a version-7 UUID's first 48 bits. */
function idMillis(id: string): number {
  return parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}
