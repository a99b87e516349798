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
});
