import { setTimeout as sleep } from 'node:timers/promises';
import { checkpointBeforeMeasuring } from '../database/checkpoint';
import { per1k } from '../measure/case-meters';
import { StalledError } from '../measure/countdown';
import { PostgresCpuMeter } from '../measure/postgres-cpu-meter';
import { BenchChild } from '../processes/bench-child';
import { QUEUE_CONFIG_ENV, QueueProcessConfig } from '../processes/queue-process-config';
import { CaseSizes } from '../shared/bench-case';
import { createBenchQueue } from '../queues/create-bench-queue';
import { warmUpSchema } from '../queues/warm-up';
import { drainSettings } from '../shared/worker-settings';
import { CaseRunner } from './case-runner';

const WORKERS = 2;
const STALL_MS = 30_000;
const START_TIMEOUT_MS = 120_000;
const EXIT_GRACE_MS = 15_000;

/**
 * Two worker processes (`handlers` each, claims of 100) drain one backlog of `jobs(sizes)` together. Each reports
 * the id of every job it ran: an id seen twice is a duplicate; a job no worker ran, or that is not
 * done in the table, is missing. Time runs from `go` to the last outcome written by either process
 * (both stamp it with Date.now() on this one machine). Each process warms up on its own schema before it
 * reports `ready` (see warmUp).
 */
export const twoProcessCase =
  (handlers: number, jobsOf: (sizes: CaseSizes) => number): CaseRunner =>
  async (spec) => {
    const { chunk, warmUpJobs } = spec.sizes;
    const jobs = jobsOf(spec.sizes);
    const producer = createBenchQueue(spec.variant, spec.url, spec.schema, spec.appName);
    try {
      await producer.setup();
      await checkpointBeforeMeasuring(spec.url);
      await producer.enqueueMany(jobs, chunk);
    } finally {
      await producer.close();
    }

    const workers = Array.from({ length: WORKERS }, (_, k) => {
      const config: QueueProcessConfig = {
        variant: spec.variant,
        url: spec.url,
        schema: spec.schema,
        appName: `${spec.appName}:w${k}`,
        settings: drainSettings(handlers),
        warmUp: { schema: warmUpSchema(spec.schema, k), jobs: warmUpJobs, chunk },
      };
      return new BenchChild('bench/processes/drain-worker.process.ts', { [QUEUE_CONFIG_ENV]: JSON.stringify(config) }, `worker ${k}`);
    });
    let graceful = false;
    try {
      await Promise.all(workers.map((w) => w.next('ready', START_TIMEOUT_MS)));
      const pg = new PostgresCpuMeter(spec.pgCpu, spec.url);
      await pg.start();
      const t0 = Date.now();
      for (const w of workers) w.send('go');
      await allFinished(workers, jobs);
      const pgCpuMs = await pg.stop();

      for (const w of workers) w.send('stop');
      const results = await Promise.all(workers.map((w) => w.next('result', START_TIMEOUT_MS)));
      graceful = true;
      const ran = results.flatMap((r) => r.ids as string[]);
      const distinct = new Set(ran).size;
      const counts = await countsOf(spec.variant, spec.url, spec.schema, spec.appName);
      const end = Math.max(...results.map((r) => r.lastAt as number));
      const seconds = (end - t0) / 1000;
      const nodeCpuMs = results.reduce((sum, r) => sum + (r.cpuMs as number), 0);
      return {
        metrics: {
          jobs,
          concurrency: handlers,
          seconds,
          jobsPerSec: jobs / seconds,
          duplicates: ran.length - distinct,
          missing: Math.max(jobs - distinct, jobs - counts.done, counts.open),
          nodeCpuMsPer1k: per1k(nodeCpuMs, jobs),
          pgCpuMsPer1k: per1k(pgCpuMs, jobs),
        },
        details: { perWorker: results.map((r) => ({ ran: (r.ids as string[]).length, finished: r.finished })) },
      };
    } finally {
      await Promise.all(workers.map((w) => w.stopped(graceful ? EXIT_GRACE_MS : 0)));
    }
  };

/** Polls the workers' progress reports until their outcomes add up to `jobs`. */
async function allFinished(workers: BenchChild[], jobs: number): Promise<void> {
  let last = -1;
  let movedAt = Date.now();
  for (;;) {
    const total = workers.reduce((sum, w) => sum + ((w.last('progress')?.finished as number | undefined) ?? 0), 0);
    if (total >= jobs) return;
    if (total !== last) {
      last = total;
      movedAt = Date.now();
    } else if (Date.now() - movedAt > STALL_MS) {
      throw new StalledError('two workers draining', total, jobs, STALL_MS);
    }
    await sleep(50);
  }
}

async function countsOf(...args: Parameters<typeof createBenchQueue>) {
  const queue = createBenchQueue(...args);
  try {
    return await queue.counts();
  } finally {
    await queue.close();
  }
}
