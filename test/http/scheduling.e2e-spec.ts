import { Job, JobStatus } from '@conveyor/core';
import { invocationsTable } from '../support/recording-handler';
import { waitFor } from '../support/wait-for';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/** A job in the state it was in at one instant of the database clock. */
interface Snapshot {
  status: JobStatus;
  /** Milliseconds until run_at, at that instant. */
  remaining_ms: number;
  runs: number;
}

/** Jobs submitted for later over REST are SCHEDULED, and a worker runs them at their time, not before. */
describe('scheduled submissions', () => {
  let t: RestTestApp;
  const DELAY_MS = 2_000;

  const submit = async (body: Record<string, unknown>) => (await t.api().post('/jobs').send(body).expect(201)).body as Job;

  /** Status, time left and invocations, read in one statement so they describe the same instant. */
  const snapshot = async (id: string): Promise<Snapshot> =>
    (
      await t.sql.query<Snapshot>(
        `SELECT j.status, (extract(epoch FROM j.run_at - clock_timestamp()) * 1000)::float8 AS remaining_ms,
                (SELECT count(*)::int FROM ${invocationsTable(t.schema.schema)} i WHERE i.job_id = j.id) AS runs
         FROM ${t.jobsTable} j WHERE j.id = $1`,
        [id],
      )
    ).rows[0];

  /** Waits until the job is due in less than `withinMs`, and returns the state it was in then. */
  const shortlyBeforeDue = (id: string, withinMs: number) =>
    waitFor(
      async () => {
        const s = await snapshot(id);
        return s.remaining_ms < withinMs ? s : null;
      },
      { message: `job ${id} to be almost due` },
    );

  /** Waits for completion; checks that the handler ran once, no earlier than run_at (database clock). */
  const expectRunOnTime = async (id: string) => {
    await waitFor(async () => (await t.statusOf(id)) === JobStatus.COMPLETED, { message: `job ${id} to complete` });
    const { rows } = await t.sql.query(
      `SELECT j.attempts, j.started_at >= j.run_at AS started_on_time, i.at >= j.run_at AS invoked_on_time
       FROM ${t.jobsTable} j JOIN ${invocationsTable(t.schema.schema)} i ON i.job_id = j.id WHERE j.id = $1`,
      [id],
    );
    expect(rows).toEqual([{ attempts: 1, started_on_time: true, invoked_on_time: true }]);
  };

  beforeAll(async () => {
    t = await createRestTestApp('http_schedule');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('runAt in the future: SCHEDULED, untouched until just before its time, then COMPLETED', async () => {
    const runAt = new Date(Date.now() + DELAY_MS).toISOString();
    const job = await submit({ type: 'TEST_RECORD', payload: {}, runAt });
    expect(job).toMatchObject({ status: JobStatus.SCHEDULED, runAt });

    const before = await shortlyBeforeDue(job.id, 500);
    expect(before.remaining_ms).toBeGreaterThan(0);
    expect(before).toMatchObject({ status: JobStatus.SCHEDULED, runs: 0 });
    await expectRunOnTime(job.id);
  });

  it('delayMs: SCHEDULED that far from submission (database clock), then COMPLETED on time', async () => {
    const job = await submit({ type: 'TEST_RECORD', payload: {}, delayMs: DELAY_MS });
    expect(job.status).toBe(JobStatus.SCHEDULED);
    expect(new Date(job.runAt).getTime() - new Date(job.createdAt).getTime()).toBe(DELAY_MS);

    const before = await shortlyBeforeDue(job.id, 500);
    expect(before.remaining_ms).toBeGreaterThan(0);
    expect(before).toMatchObject({ status: JobStatus.SCHEDULED, runs: 0 });
    await expectRunOnTime(job.id);
  });

  it('a job due later is passed over while jobs due now run', async () => {
    const later = await submit({ type: 'TEST_RECORD', payload: {}, delayMs: 3_600_000, priority: -100 });
    const now = await submit({ type: 'TEST_RECORD', payload: {}, priority: 100 });
    await waitFor(async () => (await t.statusOf(now.id)) === JobStatus.COMPLETED);
    expect(await snapshot(later.id)).toMatchObject({ status: JobStatus.SCHEDULED, runs: 0 });
  });
});
