import { Type } from '@nestjs/common';
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
 * Two instances over one schema, each running `handler` on `concurrency` slots, whose jobs run until `release` is
 * called; `byStatusAndWorker` counts the jobs by status and locked_by, as `STATUS:worker:n`.
 */
function twoInstances(schemaName: string, handler: Type, concurrency: number, idPrefix: string, release: () => void) {
  let schema: TestSchema;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    schema = await createTestSchema(schemaName);
    for (const name of ['a', 'b']) {
      apps.push(
        await createTestApp({
          schema: schema.schema,
          providers: [handler],
          engine: { concurrency, workerId: `${idPrefix}-${name}` },
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

  /** Enqueues `total` jobs of `type`, expects `held` (status:worker:n rows) once both run jobs, then lets all finish. */
  const expectHeld = async (type: string, total: number, held: string[]) => {
    await apps[0].jobs.enqueueMany(Array.from({ length: total }, (_, i) => ({ type, payload: { i } })));
    await waitFor(async () => ((await byStatusAndWorker()).filter((r) => r.startsWith('RUNNING:')).length === 2 ? true : undefined), {
      message: 'both instances to run jobs',
    });
    expect(await byStatusAndWorker()).toEqual(held);

    release();
    await waitFor(async () => ((await byStatusAndWorker()).join() === `COMPLETED:-:${total}` ? true : undefined), {
      message: `all ${total} jobs to complete`,
    });
  };

  return { expectHeld };
}

/**
 * With the default (adaptive) prefetch, an instance busy with slow jobs keeps none claimed beyond the ones it runs:
 * the rest stay ready in the table for any instance with a free slot.
 */
describe('no hoarding with the default prefetch', () => {
  const { expectHeld } = twoInstances('no_hoarding', SlowReportHandler, 2, 'hoard', () => release());

  it('two instances of 2 slots each run 2 slow jobs apiece and leave the other 2 of 6 unclaimed', async () => {
    await expectHeld('SLOW_REPORT', 6, ['PENDING:-:2', 'RUNNING:hoard-a:2', 'RUNNING:hoard-b:2']);
  });
});

/** A claim of types that are all capped takes no more than their caps let start, whatever room the pool has. */
describe('no hoarding of capped types', () => {
  const { expectHeld } = twoInstances('no_hoarding_capped', CappedReportHandler, 4, 'capped', () => releaseCapped());

  it('two instances of 4 slots, running a type capped at 1, hold one job apiece and leave the other 2 of 4 unclaimed', async () => {
    await expectHeld('CAPPED_REPORT', 4, ['PENDING:-:2', 'RUNNING:capped-a:1', 'RUNNING:capped-b:1']);
  });
});
