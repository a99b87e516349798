import { ConveyorClient, ConveyorHttpError } from '@conveyor/client';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { waitFor } from '../support/wait-for';

/** `@conveyor/client`'s schedule and instance methods against the real service (TEST_RECORD workers in process). */
describe('ConveyorClient: schedules and instances', () => {
  let t: RestTestApp;
  let client: ConveyorClient;
  const schedulesTable = () => t.jobsTable.replace('conveyor_jobs', 'conveyor_schedules');

  beforeAll(async () => {
    t = await createRestTestApp('client_operations', {
      engine: {
        workerId: 'client-ops-worker',
        schedules: [{ name: 'nightly-digest', type: 'TEST_RECORD', cron: '0 3 * * *', payload: { result: 'digest' } }],
      },
    });
    client = new ConveyorClient({ baseUrl: t.baseUrl });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists and reads schedules, pauses, resumes and triggers one: the database follows', async () => {
    const [listed] = await client.schedules();
    expect(listed).toMatchObject({ name: 'nightly-digest', cron: '0 3 * * *', type: 'TEST_RECORD', paused: false });
    expect(Date.parse(listed.nextTick!)).toBeGreaterThan(Date.now());
    expect(await client.schedule('nightly-digest')).toEqual(listed);

    const paused = await client.pauseSchedule('nightly-digest');
    expect(paused).toMatchObject({ paused: true, nextTick: null });
    const row = async () =>
      (await t.sql.query<{ paused: boolean }>(`SELECT paused FROM ${schedulesTable()} WHERE name = 'nightly-digest'`)).rows[0];
    expect(await row()).toEqual({ paused: true });

    expect(await client.resumeSchedule('nightly-digest')).toMatchObject({ paused: false });
    expect(await row()).toEqual({ paused: false });

    const job = await client.triggerSchedule('nightly-digest');
    expect(job).toMatchObject({ type: 'TEST_RECORD', payload: { result: 'digest' } });
    await waitFor(async () => (await t.statusOf(job.id)) === 'COMPLETED', { message: 'the triggered job to complete' });

    const unknown = await client.schedule('no-such-schedule').catch((err: unknown) => err);
    expect(unknown).toBeInstanceOf(ConveyorHttpError);
    expect((unknown as ConveyorHttpError).status).toBe(404);
  });

  it('lists the running instance, leader and worker', async () => {
    const instances = await waitFor(
      async () => {
        const all = await client.instances();
        return all.some((i) => i.id === 'client-ops-worker' && i.leader) ? all : undefined;
      },
      { message: 'the instance to be listed as leader' },
    );
    expect(instances).toHaveLength(1);
    expect(instances[0]).toMatchObject({ id: 'client-ops-worker', runsWorkers: true, pid: process.pid, leader: true });
  });
});
