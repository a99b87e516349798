import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ConveyorOptions } from './conveyor-options.interface';

/** The one place where Conveyor's defaults live. */
export function conveyorDefaults(): ConveyorOptions {
  return {
    claimStrategy: 'skip-locked',
    workerId: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    runWorkers: true,
    concurrency: 10,
    queueConcurrency: {},
    claimBatchSize: 100,
    prefetch: 'auto',
    pollIntervalMs: 1000,
    listen: true,
    pooler: 'none',
    leaseMs: 30_000,
    heartbeatIntervalMs: 10_000,
    maintenanceIntervalMs: 10_000,
    shutdownGraceMs: 10_000,
    livenessEventLoopDelayMs: 5_000,
    livenessClaimStallMs: 120_000,
    completionBatchSize: 100,
    completionFlushMs: 2,
    defaultMaxAttempts: 5,
    defaultTimeoutMs: 5 * 60_000,
    backoff: { baseMs: 1000, factor: 2, maxMs: 3_600_000, jitter: 0.5 },
    maxSnoozes: 100,
    retentionCompletedMs: 7 * 24 * 3_600_000,
    retentionBatchSize: 1000,
    externalTypes: [],
    maxBatchSize: 1000,
    metricsMaxQueues: 100,
    schedules: [],
    migrate: true,
  };
}
