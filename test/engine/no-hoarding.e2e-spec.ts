import { Job, JobHandler, JobHandlerHost } from '@conveyor/core';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** Slow jobs: each runs until the test releases it. */
let release: () => void = () => undefined;
const released = new Promise<void>((resolve) => (release = resolve));

@JobHandler('SLOW_REPORT')
class SlowReportHandler extends JobHandlerHost {
  async handle(_job: Job): Promise<void> {
    await released;
  }
}

/** Jobs of a type capped at one at a time per process, each running until the test releases them. */
let releaseCapped: () => void = () => undefined;
const cappedReleased = new Promise<void>((resolve) => (releaseCapped = resolve));

@JobHandler('CAPPED_REPORT', { concurrency: 1 })
class CappedReportHandler extends JobHandlerHost {
  async handle(_job: Job): Promise<void> {
    await cappedReleased;
  }
}

/**
 * With the default (adaptive) prefetch, an instance busy with slow jobs keeps none claimed beyond the ones it runs:
 * the rest stay ready in the table for any instance with a free slot.
 */
describe('no hoarding with the default prefetch', () => {
  let schema: TestSchema;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    schema = await createTestSchema('no_hoarding');
    for (const name of ['a', 'b']) {
      apps.push(
        await createTestApp({
          schema: schema.schema,
          providers: [SlowReportHandler],
          engine: { concurrency: 2, workerId: `hoard-${name}` },
        }),
      );
    }
  });

  afterAll(async () => {
    release();
    await Promise.all(apps.map((a) => a.close()));
    await schema?.drop();
  });

  const byStatusAndWorker = async () => {
    const { rows } = await apps[0].sql.query<{ status: string; locked_by: string | null; n: number }>(
      `SELECT status, locked_by, count(*)::int AS n FROM ${apps[0].jobsTable} GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    return rows.map((r) => `${r.status}:${r.locked_by ?? '-'}:${r.n}`);
  };

  it('two instances of 2 slots each run 2 slow jobs apiece and leave the other 2 of 6 unclaimed', async () => {
    await apps[0].jobs.enqueueMany(Array.from({ length: 6 }, (_, i) => ({ type: 'SLOW_REPORT', payload: { i } })));

    await waitFor(async () => ((await byStatusAndWorker()).filter((r) => r.startsWith('RUNNING:')).length === 2 ? true : undefined), {
      message: 'both instances to run jobs',
    });
    expect(await byStatusAndWorker()).toEqual(['PENDING:-:2', 'RUNNING:hoard-a:2', 'RUNNING:hoard-b:2']);

    release();
    await waitFor(async () => ((await byStatusAndWorker()).join() === 'COMPLETED:-:6' ? true : undefined), {
      message: 'all 6 jobs to complete',
    });
  });
});

/** A claim of types that are all capped takes no more than their caps let start, whatever room the pool has. */
describe('no hoarding of capped types', () => {
  let schema: TestSchema;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    schema = await createTestSchema('no_hoarding_capped');
    for (const name of ['a', 'b']) {
      apps.push(
        await createTestApp({
          schema: schema.schema,
          providers: [CappedReportHandler],
          engine: { concurrency: 4, workerId: `capped-${name}` },
        }),
      );
    }
  });

  afterAll(async () => {
    releaseCapped();
    await Promise.all(apps.map((a) => a.close()));
    await schema?.drop();
  });

  const byStatusAndWorker = async () => {
    const { rows } = await apps[0].sql.query<{ status: string; locked_by: string | null; n: number }>(
      `SELECT status, locked_by, count(*)::int AS n FROM ${apps[0].jobsTable} GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    return rows.map((r) => `${r.status}:${r.locked_by ?? '-'}:${r.n}`);
  };

  it('two instances of 4 slots, running a type capped at 1, hold one job apiece and leave the other 2 of 4 unclaimed', async () => {
    await apps[0].jobs.enqueueMany(Array.from({ length: 4 }, (_, i) => ({ type: 'CAPPED_REPORT', payload: { i } })));

    await waitFor(async () => ((await byStatusAndWorker()).filter((r) => r.startsWith('RUNNING:')).length === 2 ? true : undefined), {
      message: 'both instances to run jobs',
    });
    expect(await byStatusAndWorker()).toEqual(['PENDING:-:2', 'RUNNING:capped-a:1', 'RUNNING:capped-b:1']);

    releaseCapped();
    await waitFor(async () => ((await byStatusAndWorker()).join() === 'COMPLETED:-:4' ? true : undefined), {
      message: 'all 4 jobs to complete',
    });
  });
});
