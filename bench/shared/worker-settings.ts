import { conveyorDefaults } from '@conveyor/core';
import { WorkerSettings } from './bench-queue.interface';

/** Claims of 100 for the drains: prefetch 2 x batch, so a refill (at half the prefetch) asks for a full batch. */
export function drainSettings(concurrency: number): WorkerSettings {
  return { ...engineDefaultSettings(), concurrency, claimBatchSize: 100, prefetch: 200, completionBatchSize: 100 };
}

/** Conveyor's own defaults, for the cases that measure an out-of-the-box worker (latency, HTTP, idle). */
export function engineDefaultSettings(): WorkerSettings {
  const d = conveyorDefaults();
  return {
    concurrency: d.concurrency,
    claimBatchSize: d.claimBatchSize,
    prefetch: d.prefetch,
    pollIntervalMs: d.pollIntervalMs,
    completionBatchSize: d.completionBatchSize,
    completionFlushMs: d.completionFlushMs,
  };
}
