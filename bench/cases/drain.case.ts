import { checkpointBeforeMeasuring } from '../database/checkpoint';
import { CaseMeters, per1k } from '../measure/case-meters';
import { Countdown } from '../measure/countdown';
import { createBenchQueue } from '../shared/create-bench-queue';
import { warmUp, warmUpSchema } from '../shared/warm-up';
import { drainSettings } from '../shared/worker-settings';
import { CaseCheckError, CaseRunner } from './case-runner';

/**
 * Enqueue `jobs` no-op jobs with no worker running, then start a worker with `concurrency` handlers
 * and claims of 100, and time it from the start call to the last outcome written. With `backlog`,
 * that many finished rows are in the table first (inserted in one statement, then VACUUM ANALYZE).
 * The process warms up first (see warmUp) with the same settings.
 */
export function drainCase(concurrency: number, options: { backlog?: boolean } = {}): CaseRunner {
  return async (spec) => {
    const { jobs, chunk, backlog, warmUpJobs } = spec.sizes;
    const settings = drainSettings(concurrency);
    await warmUp({ ...spec, schema: warmUpSchema(spec.schema), jobs: warmUpJobs, chunk, settings });
    const queue = createBenchQueue(spec.variant, spec.url, spec.schema, spec.appName);
    try {
      await queue.setup();
      if (options.backlog) await queue.insertBacklog(backlog);
      await checkpointBeforeMeasuring(spec.url);
      await queue.enqueueMany(jobs, chunk);

      const started = new Countdown(jobs, 'handlers started');
      const finished = new Countdown(jobs, 'outcomes written');
      await queue.prepareWorker(settings, {
        onStart: () => started.add(),
        onFinished: (n) => finished.add(n),
      });
      const meters = new CaseMeters(spec);
      await meters.start();
      const t0 = performance.now();
      await queue.startWorker();
      const end = await finished.reached();
      const cpu = await meters.stop();

      const counts = await queue.counts();
      if (counts.open !== 0) throw new CaseCheckError(`${counts.open} jobs still open after the drain`);
      const seconds = (end - t0) / 1000;
      return {
        metrics: {
          jobs,
          concurrency,
          backlog: options.backlog ? backlog : 0,
          seconds,
          jobsPerSec: jobs / seconds,
          firstJobMs: started.firstAt - t0,
          nodeCpuMsPer1k: per1k(cpu.nodeCpuMs, jobs),
          pgCpuMsPer1k: per1k(cpu.pgCpuMs, jobs),
        },
      };
    } finally {
      await queue.close();
    }
  };
}
