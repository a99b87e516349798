import { setTimeout as sleep } from 'node:timers/promises';
import { CaseMeters } from '../measure/case-meters';
import { QueryCounter } from '../measure/query-counter';
import { createBenchQueue } from '../queues/create-bench-queue';
import { engineDefaultSettings } from '../shared/worker-settings';
import { CaseRunner } from './case-runner';

/** Time given to start-up work (first claim, leader election) before measuring. */
const SETTLE_MS = 2_000;

/**
 * Cost of a worker with nothing to do (engine defaults): CPU % of one core for this process and
 * for PostgreSQL, and statements per poll interval. Statements are counted by wrapping
 * pg's Client#query in this process (see query-counter.ts), so every connection of the worker —
 * pool, LISTEN, leader — is seen, and nothing else is.
 */
export const idleCase: CaseRunner = async (spec) => {
  const { idleSeconds } = spec.sizes;
  const settings = engineDefaultSettings();
  const counter = new QueryCounter();
  counter.install();
  const queue = createBenchQueue(spec.variant, spec.url, spec.schema, spec.appName);
  try {
    await queue.setup();
    await queue.prepareWorker(settings, {});
    await queue.startWorker();
    await sleep(SETTLE_MS);

    const meters = new CaseMeters(spec);
    await meters.start();
    counter.reset();
    const t0 = performance.now();
    await sleep(idleSeconds * 1000);
    const elapsedMs = performance.now() - t0;
    const queries = counter.snapshot();
    const cpu = await meters.stop();

    const pollIntervals = elapsedMs / settings.pollIntervalMs;
    return {
      metrics: {
        seconds: elapsedMs / 1000,
        pollIntervalMs: settings.pollIntervalMs,
        cpuPercent: (cpu.nodeCpuMs / elapsedMs) * 100,
        pgCpuPercent: (cpu.pgCpuMs / elapsedMs) * 100,
        queries: queries.total,
        queriesPerPoll: queries.total / pollIntervals,
      },
      details: { queriesByStatement: queries.byStatement },
    };
  } finally {
    counter.uninstall();
    await queue.close();
  }
};
