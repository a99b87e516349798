import { Job, JobStatus } from '@conveyor/core';
import { WorkerPool } from '@conveyor/core/consumer/worker-pool.service';
import { waitFor } from '../support/wait-for';
import { ControlledHandler, HandlerControls } from './support/controlled.handler';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

/**
 * `POST /queues/:queue/pause` on an instance that claimed jobs of the queue ahead (prefetch) and has not started them:
 * they are handed back unrun instead of running after the pause answered.
 */
describe('pausing a queue whose jobs a worker claimed ahead', () => {
  let t: RestTestApp;
  let controls: HandlerControls;
  const submit = async (body: Record<string, unknown>) => (await t.api().post('/jobs').send(body).expect(201)).body as Job;

  beforeAll(async () => {
    t = await createRestTestApp('http_pause_claimed_ahead', {
      providers: [HandlerControls, ControlledHandler],
      engine: { concurrency: 1, prefetch: 30 },
    });
    controls = t.app.get(HandlerControls);
  });

  afterAll(async () => {
    controls?.releaseAll();
    await t?.close();
  });

  it('hands the claimed-ahead jobs back unrun, with their attempts refunded; they run once the queue resumes', async () => {
    const queue = 'claimed-ahead';
    controls.hold('blocker');
    const blocker = await submit({ type: 'TEST_CONTROLLED', payload: { name: 'blocker' }, queue });
    await waitFor(async () => ((await t.statusOf(blocker.id)) === JobStatus.RUNNING ? true : null), { message: 'the blocker to run' });
    const jobs = await Promise.all(Array.from({ length: 20 }, (_, i) => submit({ type: 'TEST_RECORD', payload: { i }, queue })));
    const ids = jobs.map((j) => j.id);
    // The only slot is taken, so the pool claims the others ahead: RUNNING in the table, buffered in the pool.
    await waitFor(() => t.app.get(WorkerPool).stats().buffered === jobs.length || null, { message: 'every job claimed ahead' });

    await t.api().post(`/queues/${queue}/pause`).expect(200);
    const handedBack = await waitFor(
      async () => {
        const rows = await t.rows(`id = ANY($1::uuid[]) AND status = 'PENDING'`, [ids]);
        return rows.length === jobs.length ? rows : null;
      },
      { message: 'the claimed-ahead jobs to be handed back' },
    );
    for (const row of handedBack) {
      expect(row).toMatchObject({ attempts: 0, locked_by: null, lease_token: null });
      expect(row.errors).toEqual([expect.objectContaining({ kind: 'handed-back', error: expect.stringContaining('paused') })]);
    }
    expect(t.app.get(WorkerPool).stats().buffered).toBe(0);

    // The running attempt goes on and ends; none of the handed-back jobs starts while the queue stays paused.
    controls.release('blocker');
    await waitFor(async () => ((await t.statusOf(blocker.id)) === JobStatus.COMPLETED ? true : null), { message: 'the blocker to end' });
    await waitFor(() => t.app.get(WorkerPool).stats().finishing === 0 || null, { message: 'the outcome written' });
    expect(await t.rows(`id = ANY($1::uuid[]) AND status <> 'PENDING'`, [ids])).toEqual([]);
    for (const id of ids) expect(await t.invocations(id)).toBe(0);

    await t.api().post(`/queues/${queue}/resume`).expect(200);
    await waitFor(
      async () => ((await t.rows(`id = ANY($1::uuid[]) AND status = 'COMPLETED'`, [ids])).length === jobs.length ? true : null),
      { message: 'every job to complete after the resume' },
    );
    for (const id of ids) expect(await t.invocations(id)).toBe(1);
  });
});
