import { Pool } from 'pg';
import request from 'supertest';
import { JobStatus } from '@conveyor/core';
import { MaintenanceService } from '@conveyor/core/maintenance/maintenance.service';
import { parsePrometheusText, PromSample, sampleValue, samplesOf } from '../support/prometheus-text';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const TYPE = 'TEST_RECORD';
const DB_WIDE = ['conveyor_queue_depth', 'conveyor_queue_oldest_ready_age_seconds'];

/**
 * The database-wide queue gauges come from one instance, the maintenance leader, so that `sum()` over instances
 * counts each job once; per-instance series (pool slots, submissions) stay on every instance.
 */
describe('queue gauges across instances', () => {
  let schema: TestSchema;
  let recorder: Pool;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    schema = await createTestSchema('queue_gauges');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    for (const name of ['a', 'b', 'c']) {
      apps.push(
        await createTestApp({
          schema: schema.schema,
          providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
          // No prefetch: each instance holds only the jobs it runs, so slots in use add up to the RUNNING jobs.
          engine: { concurrency: 2, prefetch: 0, workerId: `gauges-${name}` },
        }),
      );
    }
  });

  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await recorder?.end();
    await schema?.drop();
  });

  const scrape = async (t: TestApp): Promise<PromSample[]> =>
    parsePrometheusText((await request(t.app.getHttpServer()).get('/metrics').expect(200)).text);
  const scrapeAll = () => Promise.all(apps.map(scrape));
  const sum = (scrapes: PromSample[][], name: string, labels: Record<string, string> = {}) =>
    scrapes.flatMap((s) => samplesOf(s, name, labels)).reduce((total, s) => total + s.value, 0);
  const reporters = (scrapes: PromSample[][]) =>
    scrapes.flatMap((s, i) => (DB_WIDE.some((name) => samplesOf(s, name).length > 0) ? [i] : []));
  const leaders = (scrapes: PromSample[][]) => scrapes.flatMap((s, i) => (sampleValue(s, 'conveyor_maintenance_leader') === 1 ? [i] : []));

  /** Depth per "queue/status" as the table has it, for the states the gauge reports. */
  async function depthInTable(): Promise<Map<string, number>> {
    const { rows } = await apps[0].sql.query<{ queue: string; status: string; n: number }>(
      `SELECT queue, status, count(*)::int AS n FROM ${apps[0].jobsTable}
       WHERE status IN ('SCHEDULED','PENDING','RETRYING','RUNNING','DEAD') GROUP BY queue, status`,
    );
    return new Map(rows.map((r) => [`${r.queue}/${r.status}`, r.n]));
  }

  /** The sums over instances equal the table's counts, for every queue and state either side knows. */
  function sumsMatch(scrapes: PromSample[][], table: Map<string, number>): boolean {
    const keys = new Set([
      ...table.keys(),
      ...scrapes.flatMap((s) => samplesOf(s, 'conveyor_queue_depth').map((x) => `${x.labels.queue}/${x.labels.status}`)),
    ]);
    return [...keys].every((key) => {
      const [queue, status] = key.split('/');
      return sum(scrapes, 'conveyor_queue_depth', { queue, status }) === (table.get(key) ?? 0);
    });
  }

  it('only the leader reports the database-wide gauges: the sum over instances is the real count', async () => {
    // A mix across the three instances: RUNNING jobs spread over their pools, ready jobs held in a paused queue,
    // scheduled ones, and one DEAD.
    await request(apps[0].app.getHttpServer()).post('/queues/parked/pause').expect(200);
    const running = await Promise.all([1, 2, 3, 4].map(() => apps[1].jobs.enqueue(TYPE, { sleepMs: 60_000 }, { queue: 'busy' })));
    for (let i = 0; i < 3; i++) await apps[i].jobs.enqueue(TYPE, {}, { queue: 'parked' });
    await apps[2].jobs.enqueue(TYPE, {}, { queue: 'later', runAt: new Date(Date.now() + 3_600_000) });
    const dead = await apps[2].jobs.enqueue(TYPE, {}, { queue: 'parked' });
    await apps[0].sql.query(`UPDATE ${apps[0].jobsTable} SET status = 'DEAD' WHERE id = $1`, [dead.id]);
    await waitFor(
      async () => (await Promise.all(running.map((j) => apps[0].jobs.get(j.id)))).every((j) => j.status === JobStatus.RUNNING),
      {
        message: 'the four long jobs to run',
      },
    );

    const table = await depthInTable();
    expect(table.get('busy/RUNNING')).toBe(4);
    expect(table.get('parked/PENDING')).toBe(3);
    const scrapes = await waitFor(
      async () => {
        const s = await scrapeAll();
        return leaders(s).length === 1 && sumsMatch(s, table) && s;
      },
      { message: 'the gauges to show the table, once' },
    );

    // Exactly one instance reports them, and it is the one that says it leads; the others have no series at all.
    expect(reporters(scrapes)).toEqual(leaders(scrapes));
    const leader = leaders(scrapes)[0];
    expect(sampleValue(scrapes[leader], 'conveyor_queue_depth', { queue: 'parked', status: 'DEAD' })).toBe(1);
    expect(sampleValue(scrapes[leader], 'conveyor_queue_depth', { queue: 'later', status: 'SCHEDULED' })).toBe(1);
    expect(sum(scrapes, 'conveyor_maintenance_leader')).toBe(1);

    // Per-instance series stay on every instance: slots in use add up to the RUNNING jobs, capacity to the pools'.
    for (const s of scrapes) expect(sampleValue(s, 'conveyor_pool_slots_capacity')).toBe(2);
    expect(sum(scrapes, 'conveyor_pool_slots_in_use')).toBe(4);
    expect(sum(scrapes, 'conveyor_jobs_submitted_total', { queue: 'parked' })).toBe(4);
    expect(scrapes.map((s) => sampleValue(s, 'conveyor_jobs_submitted_total', { queue: 'parked', type: TYPE }))).toEqual([1, 1, 2]);
  });

  it('reports the age of the oldest ready job per queue, as the database has it', async () => {
    // The oldest parked job became due 90 s ago; a job due in an hour is not ready, and a busy queue has none waiting.
    await apps[0].sql.query(
      `UPDATE ${apps[0].jobsTable} SET run_at = now() - interval '90 seconds'
       WHERE id = (SELECT id FROM ${apps[0].jobsTable} WHERE queue = 'parked' AND status = 'PENDING' ORDER BY id LIMIT 1)`,
    );
    const ageInTable = async () =>
      (
        await apps[0].sql.query<{ age: number }>(
          `SELECT extract(epoch FROM now() - min(run_at))::float8 AS age FROM ${apps[0].jobsTable}
           WHERE queue = 'parked' AND status IN ('SCHEDULED','PENDING','RETRYING') AND run_at <= now()`,
        )
      ).rows[0].age;

    const { scrapes, before, after } = await waitFor(
      async () => {
        const before = await ageInTable();
        const s = await scrapeAll();
        const after = await ageInTable();
        const age = sum(s, 'conveyor_queue_oldest_ready_age_seconds', { queue: 'parked' });
        return age >= 90 && { scrapes: s, before, after };
      },
      { message: 'the age gauge to show the back-dated job' },
    );
    const leader = leaders(scrapes)[0];
    expect(reporters(scrapes)).toEqual([leader]);
    const age = sampleValue(scrapes[leader], 'conveyor_queue_oldest_ready_age_seconds', { queue: 'parked' })!;
    // Read between two readings of the table, give or take the reader's one-second cache.
    expect(age).toBeGreaterThanOrEqual(before - 1.5);
    expect(age).toBeLessThanOrEqual(after + 0.5);
    expect(sampleValue(scrapes[leader], 'conveyor_queue_oldest_ready_age_seconds', { queue: 'later' })).toBe(0);
    expect(sampleValue(scrapes[leader], 'conveyor_queue_oldest_ready_age_seconds', { queue: 'busy' })).toBe(0);
  });

  it('moves the series with the leadership', async () => {
    const table = await depthInTable();
    const before = await waitFor(async () => {
      const s = await scrapeAll();
      return leaders(s).length === 1 && s;
    });
    const first = leaders(before)[0];
    // The leader stops its maintenance and resigns; another instance takes over at its next round.
    await apps[first].app.get(MaintenanceService).stop();

    const scrapes = await waitFor(
      async () => {
        const s = await scrapeAll();
        return leaders(s).length === 1 && leaders(s)[0] !== first && sumsMatch(s, table) && s;
      },
      { message: 'another instance to lead and report the gauges' },
    );
    const next = leaders(scrapes)[0];
    expect(reporters(scrapes)).toEqual([next]);
    expect(sampleValue(scrapes[first], 'conveyor_maintenance_leader')).toBe(0);
    expect(DB_WIDE.flatMap((name) => samplesOf(scrapes[first], name))).toEqual([]);
    expect(sampleValue(scrapes[next], 'conveyor_queue_depth', { queue: 'busy', status: 'RUNNING' })).toBe(4);
    // Queues it learnt of only now still get their zero series.
    expect(sampleValue(scrapes[next], 'conveyor_queue_depth', { queue: 'busy', status: 'PENDING' })).toBe(0);
    apps[first].app.get(MaintenanceService).start();
  });
});
