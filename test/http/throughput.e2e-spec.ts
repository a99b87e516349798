import { Job, JobStatus } from '@conveyor/core';
import { jobThroughputByMinute } from '@conveyor/core/storage/statements';
import { waitFor } from '../support/wait-for';
import { ControlledHandler, HandlerControls } from './support/controlled.handler';
import { expectErrorBody } from './support/error-body.assertions';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

interface Report {
  minutes: number;
  since: string;
  queues: Array<{ name: string; perMinute: Array<{ minute: string; completed: number; failed: number }> }>;
}

/** `GET /queues/throughput`: COMPLETED and DEAD jobs per queue and minute, from finished_at. */
describe('GET /queues/throughput', () => {
  let t: RestTestApp;
  let controls: HandlerControls;

  const submit = async (body: Record<string, unknown>) => (await t.api().post('/jobs').send(body).expect(201)).body as Job;
  const reach = (id: string, status: JobStatus) =>
    waitFor(async () => (await t.statusOf(id)) === status, { message: `job ${id} to be ${status}` });
  /** Moves a finished job's finished_at `minutes` whole minutes back and answers its minute, as the API spells it. */
  const finishedMinutesAgo = async (id: string, minutes: number) => {
    const { rows } = await t.sql.query<{ minute: Date }>(
      `UPDATE ${t.jobsTable} SET finished_at = date_trunc('minute', now()) - $2 * interval '1 minute' + interval '20 seconds'
       WHERE id = $1 RETURNING date_trunc('minute', finished_at) AS minute`,
      [id, minutes],
    );
    return rows[0].minute.toISOString();
  };

  beforeAll(async () => {
    t = await createRestTestApp('http_throughput', { providers: [HandlerControls, ControlledHandler] });
    controls = t.app.get(HandlerControls);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('counts completed and dead jobs per queue and minute, fills empty minutes, and leaves older ones out', async () => {
    const done = [];
    for (let i = 0; i < 3; i++) done.push(await submit({ type: 'TEST_RECORD', payload: { i }, queue: 'tp-a' }));
    controls.failing.add('tp-dead');
    const deadJob = await submit({ type: 'TEST_CONTROLLED', payload: { name: 'tp-dead' }, queue: 'tp-b' });
    for (const job of done) await reach(job.id, JobStatus.COMPLETED);
    await reach(deadJob.id, JobStatus.DEAD);

    const twoAgo = await finishedMinutesAgo(done[0].id, 2);
    await finishedMinutesAgo(done[1].id, 2);
    const deadMinute = await finishedMinutesAgo(deadJob.id, 4);
    await finishedMinutesAgo(done[2].id, 30); // outside a 15-minute window

    const report = (await t.api().get('/queues/throughput?minutes=15').expect(200)).body as Report;
    expect(report.minutes).toBe(15);
    for (const q of report.queues) {
      expect(q.perMinute).toHaveLength(15);
      expect(q.perMinute[0].minute).toBe(report.since);
      q.perMinute.forEach((m, i) => expect(new Date(m.minute).getTime()).toBe(new Date(report.since).getTime() + i * 60_000));
    }
    const a = report.queues.find((q) => q.name === 'tp-a')!;
    const b = report.queues.find((q) => q.name === 'tp-b')!;
    expect(a.perMinute.find((m) => m.minute === twoAgo)).toEqual({ minute: twoAgo, completed: 2, failed: 0 });
    expect(a.perMinute.reduce((n, m) => n + m.completed + m.failed, 0)).toBe(2);
    expect(b.perMinute.find((m) => m.minute === deadMinute)).toEqual({ minute: deadMinute, completed: 0, failed: 1 });
    expect(b.perMinute.reduce((n, m) => n + m.completed + m.failed, 0)).toBe(1);

    // A 1-minute window holds only the current minute: none of the moved jobs.
    const now = (await t.api().get('/queues/throughput?minutes=1').expect(200)).body as Report;
    expect(now.queues.filter((q) => q.name === 'tp-a' || q.name === 'tp-b')).toEqual([]);
    // 15 is the default.
    expect(((await t.api().get('/queues/throughput').expect(200)).body as Report).minutes).toBe(15);
  });

  it('400 naming minutes when it is out of range or not a number', async () => {
    for (const bad of ['0', '1441', 'abc', '2.5']) {
      expectErrorBody(await t.api().get(`/queues/throughput?minutes=${bad}`), 400, ['minutes']);
    }
  });

  it('400 naming minutes when it is not plain decimal digits, though Number() would read it', async () => {
    for (const bad of ['0x10', '0o20', '1e1', '%2016', '16%20', '%2B16', '16.0', '']) {
      expectErrorBody(await t.api().get(`/queues/throughput?minutes=${bad}`), 400, ['minutes']);
    }
    expect(((await t.api().get('/queues/throughput?minutes=016').expect(200)).body as Report).minutes).toBe(16);
  });

  it('reads finished jobs through the partial indexes, not by scanning the table', async () => {
    const stmt = jobThroughputByMinute(t.db.tables, 15);
    const client = await t.sql.connect();
    try {
      // The test table is tiny, so the planner would rightly prefer a scan; forbid it to see what serves the query.
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${stmt.text}`, stmt.values);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('conveyor_jobs_completed_finished');
      expect(plan).toContain('conveyor_jobs_attention');
      expect(plan).not.toContain('Seq Scan');
    } finally {
      await client.query('RESET enable_seqscan').catch(() => undefined);
      client.release();
    }
  });
});
