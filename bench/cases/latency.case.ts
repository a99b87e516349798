import { setTimeout as sleep } from 'node:timers/promises';
import { checkpointBeforeMeasuring } from '../database/checkpoint';
import { CaseMeters, per1k } from '../measure/case-meters';
import { Countdown } from '../measure/countdown';
import { percentile } from '../measure/stats';
import { createBenchQueue } from '../shared/create-bench-queue';
import { engineDefaultSettings } from '../shared/worker-settings';
import { CaseRunner } from './case-runner';

/** Jobs run before measuring, so connections, prepared statements and the JIT are warm for both. */
const WARM_UP_JOBS = 10;

interface LatencyPayload {
  i: number;
}

/**
 * Pickup latency of an idle worker (engine defaults): one job every `latencyIntervalMs`, each timed
 * from just before the enqueue call to the start of its handler. Producer and worker share this
 * process, so both timestamps come from one clock (performance.now()).
 */
export const latencyCase: CaseRunner = async (spec) => {
  const { latencyJobs, latencyIntervalMs } = spec.sizes;
  const queue = createBenchQueue(spec.variant, spec.url, spec.schema, spec.appName);
  const sentAt = new Map<number, number>();
  const startedAt = new Map<number, number>();
  const total = WARM_UP_JOBS + latencyJobs;
  const started = new Countdown(total, 'handlers started');
  try {
    await queue.setup();
    await checkpointBeforeMeasuring(spec.url);
    await queue.prepareWorker(engineDefaultSettings(), {
      onStart: (_id, payload) => {
        startedAt.set((payload as LatencyPayload).i, performance.now());
        started.add();
      },
    });
    await queue.startWorker();

    let meters: CaseMeters | null = null;
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      if (i === WARM_UP_JOBS) {
        meters = new CaseMeters(spec);
        await meters.start();
      }
      // Pace by the schedule, not by the previous call, so a slow enqueue does not shift later ones.
      const due = t0 + i * latencyIntervalMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      sentAt.set(i, performance.now());
      await queue.enqueueOne({ i } satisfies LatencyPayload);
    }
    await started.reached();
    const cpu = await meters!.stop();

    const latencies: number[] = [];
    for (let i = WARM_UP_JOBS; i < total; i++) latencies.push(startedAt.get(i)! - sentAt.get(i)!);
    return {
      metrics: {
        jobs: latencyJobs,
        intervalMs: latencyIntervalMs,
        p50Ms: percentile(latencies, 50),
        p95Ms: percentile(latencies, 95),
        p99Ms: percentile(latencies, 99),
        maxMs: Math.max(...latencies),
        nodeCpuMsPer1k: per1k(cpu.nodeCpuMs, latencyJobs),
        pgCpuMsPer1k: per1k(cpu.pgCpuMs, latencyJobs),
      },
    };
  } finally {
    await queue.close();
  }
};
