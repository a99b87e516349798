import { checkpointBeforeMeasuring } from '../database/checkpoint';
import { CaseMeters, per1k } from '../measure/case-meters';
import { Countdown } from '../measure/countdown';
import { RssMeter } from '../measure/rss-meter';
import { CaseSizes } from '../shared/bench-case';
import { createBenchQueue } from '../queues/create-bench-queue';
import { warmUp, warmUpSchema } from '../queues/warm-up';
import { drainSettings, engineDefaultSettings } from '../shared/worker-settings';
import { CaseCheckError, CaseRunner } from './case-runner';

/** What one drain case drains, and how. */
export interface DrainPlan {
  concurrency: number;
  /** How many jobs, from the run's sizes. */
  jobs: (sizes: CaseSizes) => number;
  /** Conveyor's defaults (concurrency 10, prefetch 10…) instead of the tuned drain settings. */
  defaults?: boolean;
  /**
   * How the jobs get into the table: `enqueue` (enqueueMany in chunks, as a producer would), or `rows` (one
   * INSERT … SELECT generate_series, then VACUUM ANALYZE: how the growth case gets a million pending jobs in
   * seconds rather than minutes).
   */
  fill?: 'enqueue' | 'rows';
  /** Finished rows retained in the table under the drain, from the run's sizes. */
  history?: (sizes: CaseSizes) => number;
  /**
   * Serve the REST API from the worker's process too, as apps/server does (the floor: its bare server): the drain
   * then counts what that code holds in the worker's memory. No requests are sent.
   */
  http?: 'express';
  /**
   * Live events are watched during the drain, warm-up included: a live-watch lease is held, so the worker announces
   * every change (PrepareWorkerOptions.liveWatched; nobody listens to the announcements). Conveyor only.
   */
  liveWatched?: boolean;
}

/**
 * Put the jobs in the table with no worker running, then start a worker and time it from the start call to the
 * last outcome written. Checks every job ran once (handler starts: duplicates) and none is left open (missing),
 * and reports the worker's resident memory. The process warms up first (see warmUp) with the same settings.
 */
export function drainCase(plan: DrainPlan): CaseRunner {
  return async (spec) => {
    const { chunk, warmUpJobs } = spec.sizes;
    const jobs = plan.jobs(spec.sizes);
    const history = plan.history?.(spec.sizes) ?? 0;
    const settings = plan.defaults ? engineDefaultSettings() : drainSettings(plan.concurrency);
    await warmUp({ ...spec, schema: warmUpSchema(spec.schema), jobs: warmUpJobs, chunk, settings, liveWatched: plan.liveWatched });
    const queue = createBenchQueue(spec.variant, spec.url, spec.schema, spec.appName);
    try {
      await queue.setup();
      if (history > 0) await queue.insertRows(history, 'finished');
      await checkpointBeforeMeasuring(spec.url);
      if (plan.fill === 'rows') await queue.insertRows(jobs, 'pending');
      else await queue.enqueueMany(jobs, chunk);

      const started = new Countdown(jobs, 'handlers started');
      const finished = new Countdown(jobs, 'outcomes written');
      await queue.prepareWorker(
        settings,
        {
          onStart: () => started.add(),
          onFinished: (n) => finished.add(n),
        },
        { http: plan.http, liveWatched: plan.liveWatched },
      );
      const meters = new CaseMeters(spec);
      const rss = new RssMeter();
      await meters.start();
      rss.start();
      const t0 = performance.now();
      await queue.startWorker();
      const end = await finished.reached();
      const memory = rss.stop();
      const cpu = await meters.stop();

      const counts = await queue.counts();
      if (counts.open !== 0) throw new CaseCheckError(`${counts.open} jobs still open after the drain`);
      const seconds = (end - t0) / 1000;
      return {
        metrics: {
          jobs,
          concurrency: settings.concurrency,
          // -1 stands for `auto` (metrics are numbers).
          prefetch: settings.prefetch === 'auto' ? -1 : settings.prefetch,
          history,
          seconds,
          jobsPerSec: jobs / seconds,
          firstJobMs: started.firstAt - t0,
          duplicates: Math.max(0, started.count - jobs),
          missing: counts.open + Math.max(0, jobs - started.count),
          rssAtStartMb: memory.startMb,
          rssSampledPeakMb: memory.sampledPeakMb,
          peakRssMb: memory.peakMb,
          nodeCpuMsPer1k: per1k(cpu.nodeCpuMs, jobs),
          pgCpuMsPer1k: per1k(cpu.pgCpuMs, jobs),
        },
      };
    } finally {
      await queue.close();
    }
  };
}
