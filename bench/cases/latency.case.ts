import { checkpointBeforeMeasuring } from '../database/checkpoint';
import { CaseMeters, per1k } from '../measure/case-meters';
import { Countdown } from '../measure/countdown';
import { percentile } from '../measure/stats';
import { BenchChild } from '../processes/bench-child';
import { QUEUE_CONFIG_ENV, QueueProcessConfig } from '../processes/queue-process-config';
import { createBenchQueue } from '../queues/create-bench-queue';
import { LatencyPayload, producePaced, wallClockMs } from '../shared/paced-producer';
import { engineDefaultSettings } from '../shared/worker-settings';
import { CaseRunner } from './case-runner';

/** Jobs sent first and not counted, so connections, prepared statements and the JIT are warm for every variant. */
const WARM_UP_JOBS = 10;
const START_TIMEOUT_MS = 120_000;
const EXIT_GRACE_MS = 15_000;

/**
 * Pickup latency of an idle worker (engine defaults): one job every `latencyIntervalMs`, each timed from just
 * before the enqueue call to the start of its handler. The producer runs in the worker's process (`worker`:
 * Conveyor may then hand its own insert to its worker without waiting for the NOTIFY) or in a process of its own
 * (`other-process`, as a REST client or another service is: every variant is woken by the NOTIFY). Stamps
 * come from `wallClockMs()`, comparable across the two processes.
 */
export function latencyCase(producer: 'worker' | 'other-process'): CaseRunner {
  return async (spec) => {
    const { latencyJobs, latencyIntervalMs } = spec.sizes;
    const total = WARM_UP_JOBS + latencyJobs;
    const queue = createBenchQueue(spec.variant, spec.url, spec.schema, spec.appName);
    const latencies: number[] = [];
    const started = new Countdown(total, 'handlers started');
    let child: BenchChild | null = null;
    let graceful = false;
    try {
      await queue.setup();
      await checkpointBeforeMeasuring(spec.url);
      await queue.prepareWorker(engineDefaultSettings(), {
        onStart: (_id, payload) => {
          const { i, sentAt } = payload as LatencyPayload;
          if (i >= WARM_UP_JOBS) latencies.push(wallClockMs() - sentAt);
          started.add();
        },
      });
      await queue.startWorker();

      const meters = new CaseMeters(spec);
      if (producer === 'worker') {
        await meters.start();
        await producePaced(queue, total, latencyIntervalMs);
      } else {
        const config: QueueProcessConfig = {
          variant: spec.variant,
          url: spec.url,
          schema: spec.schema,
          appName: `${spec.appName}:producer`,
          settings: engineDefaultSettings(),
          produce: { jobs: total, intervalMs: latencyIntervalMs },
        };
        child = new BenchChild('bench/processes/producer.process.ts', { [QUEUE_CONFIG_ENV]: JSON.stringify(config) }, 'producer');
        await child.next('ready', START_TIMEOUT_MS);
        await meters.start();
        child.send('go');
        await child.next('sent', START_TIMEOUT_MS + total * latencyIntervalMs);
        graceful = true;
      }
      await started.reached();
      const cpu = await meters.stop();
      return {
        metrics: {
          jobs: latencyJobs,
          intervalMs: latencyIntervalMs,
          p50Ms: percentile(latencies, 50),
          p95Ms: percentile(latencies, 95),
          p99Ms: percentile(latencies, 99),
          maxMs: Math.max(...latencies),
          nodeCpuMsPer1k: per1k(cpu.nodeCpuMs, total),
          pgCpuMsPer1k: per1k(cpu.pgCpuMs, total),
        },
      };
    } finally {
      await child?.stopped(graceful ? EXIT_GRACE_MS : 0);
      await queue.close();
    }
  };
}
