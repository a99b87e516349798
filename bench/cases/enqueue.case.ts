import { checkpointBeforeMeasuring } from '../database/checkpoint';
import { CaseMeters, per1k } from '../measure/case-meters';
import { createBenchQueue } from '../queues/create-bench-queue';
import { warmUp, warmUpSchema } from '../queues/warm-up';
import { drainSettings } from '../shared/worker-settings';
import { CaseCheckError, CaseRunner } from './case-runner';

/**
 * Bulk enqueue: `jobs` no-op jobs, `chunk` per statement, one statement after another, no worker
 * running. Conveyor goes through JobsService.enqueueMany (validation, one json-recordset INSERT per
 * chunk, its transaction); the floor sends a multi-row INSERT … VALUES. The process warms up first (see
 * warmUp), which enqueues too.
 */
export const enqueueCase: CaseRunner = async (spec) => {
  const { jobs, chunk, warmUpJobs } = spec.sizes;
  await warmUp({ ...spec, schema: warmUpSchema(spec.schema), jobs: warmUpJobs, chunk, settings: drainSettings(10) });
  const queue = createBenchQueue(spec.variant, spec.url, spec.schema, spec.appName);
  try {
    await queue.setup();
    await checkpointBeforeMeasuring(spec.url);
    const meters = new CaseMeters(spec);
    await meters.start();
    const t0 = performance.now();
    await queue.enqueueMany(jobs, chunk);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = await meters.stop();
    const counts = await queue.counts();
    if (counts.total !== jobs) throw new CaseCheckError(`${counts.total} rows stored, ${jobs} enqueued`);
    return {
      metrics: {
        jobs,
        chunk,
        seconds,
        jobsPerSec: jobs / seconds,
        nodeCpuMsPer1k: per1k(cpu.nodeCpuMs, jobs),
        pgCpuMsPer1k: per1k(cpu.pgCpuMs, jobs),
      },
    };
  } finally {
    await queue.close();
  }
};
