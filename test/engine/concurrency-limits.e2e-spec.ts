import { Job, JobContext, JobHandler, JobHandlerHost } from '@conveyor/core';
import { createTestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** Counts how many of its jobs run at once, per handler class. */
class Gauge {
  now = 0;
  peak = 0;
  enter(): void {
    this.now++;
    this.peak = Math.max(this.peak, this.now);
  }
  leave(): void {
    this.now--;
  }
}
const typeGauge = new Gauge();
const queueGauge = new Gauge();
const globalGauge = new Gauge();

const hold = async (gauges: Gauge[], ctx: JobContext) => {
  for (const g of gauges) g.enter();
  await new Promise((r) => setTimeout(r, 40));
  for (const g of gauges) g.leave();
  return ctx.attempt;
};

@JobHandler('LIMITED_TYPE', { concurrency: 2 })
class LimitedTypeHandler extends JobHandlerHost {
  handle(_job: Job, ctx: JobContext) {
    return hold([typeGauge, globalGauge], ctx);
  }
}

@JobHandler('IN_SLOW_QUEUE', { queue: 'slow' })
class SlowQueueHandler extends JobHandlerHost {
  handle(_job: Job, ctx: JobContext) {
    return hold([queueGauge, globalGauge], ctx);
  }
}

@JobHandler('FREE')
class FreeHandler extends JobHandlerHost {
  handle(_job: Job, ctx: JobContext) {
    return hold([globalGauge], ctx);
  }
}

/** Jobs of a type capped at one at a time, each running until the test case releases them all. */
let releaseCapped: () => void = () => undefined;
let cappedReleased = Promise.resolve();

@JobHandler('CAPPED_SLOW', { concurrency: 1 })
class CappedSlowHandler extends JobHandlerHost {
  async handle() {
    await cappedReleased;
  }
}

@JobHandler('UNCAPPED_QUICK')
class UncappedQuickHandler extends JobHandlerHost {
  handle() {
    return 'done';
  }
}

describe('concurrency limits', () => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await createTestSchema('limits');
  });
  afterAll(async () => schema?.drop());

  it('never runs more than the global, per-queue and per-type limits at once, and still drains everything', async () => {
    const t = await createTestApp({
      schema: schema.schema,
      providers: [LimitedTypeHandler, SlowQueueHandler, FreeHandler],
      engine: { runWorkers: false },
    });
    await t.jobs.enqueueMany([
      ...Array.from({ length: 30 }, () => ({ type: 'LIMITED_TYPE', payload: {} })),
      ...Array.from({ length: 30 }, () => ({ type: 'IN_SLOW_QUEUE', payload: {} })),
      ...Array.from({ length: 30 }, () => ({ type: 'FREE', payload: {} })),
    ]);
    await t.close();

    const worker = await createTestApp({
      schema: schema.schema,
      providers: [LimitedTypeHandler, SlowQueueHandler, FreeHandler],
      engine: { concurrency: 6, prefetch: 20, queueConcurrency: { slow: 3 } },
      http: false,
    });
    try {
      await waitFor(
        async () => {
          const { rows } = await worker.sql.query(`SELECT count(*)::int AS n FROM ${worker.jobsTable} WHERE status = 'COMPLETED'`);
          return rows[0].n === 90;
        },
        { timeoutMs: 30_000, message: 'all 90 jobs to complete' },
      );
      expect(typeGauge.peak).toBe(2);
      expect(queueGauge.peak).toBe(3);
      expect(globalGauge.peak).toBe(6);
    } finally {
      await worker.close();
    }
  });

  it.each([['auto' as const], [4]])(
    'claims other types for the slots a capped type leaves idle, though its claimed backlog comes first (prefetch %s)',
    async (prefetch) => {
      cappedReleased = new Promise<void>((resolve) => (releaseCapped = resolve));
      const own = await createTestSchema(`limits_capped_${prefetch}`);
      const worker = await createTestApp({
        schema: own.schema,
        providers: [CappedSlowHandler, UncappedQuickHandler],
        engine: { concurrency: 4, prefetch },
        http: false,
      });
      const count = async (type: string, status: string) => {
        const { rows } = await worker.sql.query(`SELECT count(*)::int AS n FROM ${worker.jobsTable} WHERE type = $1 AND status = $2`, [
          type,
          status,
        ]);
        return rows[0].n as number;
      };
      try {
        // The capped backlog comes first by priority: one claim takes as many of it as there is room, one can run.
        await worker.jobs.enqueueMany(Array.from({ length: 12 }, () => ({ type: 'CAPPED_SLOW', payload: {}, priority: 0 })));
        await waitFor(async () => (await count('CAPPED_SLOW', 'RUNNING')) > 1, { message: 'the capped backlog to be claimed' });
        await worker.jobs.enqueueMany(Array.from({ length: 5 }, () => ({ type: 'UNCAPPED_QUICK', payload: {}, priority: 10 })));
        await waitFor(async () => (await count('UNCAPPED_QUICK', 'COMPLETED')) === 5, {
          message: 'the other type to run in the idle slots while the capped one runs',
        });
        expect(await count('CAPPED_SLOW', 'COMPLETED')).toBe(0);
      } finally {
        releaseCapped();
        await worker.close();
        await own.drop();
      }
    },
  );
});
