import { Variant } from '../shared/bench-case';
import { PrepareWorkerOptions, WorkerSettings } from '../shared/bench-queue.interface';
import { WarmUpPlan } from '../queues/warm-up';

/** What a worker, server or producer child needs to build its queue (JSON in BENCH_QUEUE). */
export interface QueueProcessConfig {
  variant: Variant;
  url: string;
  schema: string;
  appName: string;
  settings: WorkerSettings;
  /** Where and how much to warm up before building the measured queue (drain workers), with the settings above. */
  warmUp?: Pick<WarmUpPlan, 'schema' | 'jobs' | 'chunk'>;
  /** Server children: the framework, and whether the worker runs beside the API. */
  serve?: PrepareWorkerOptions;
  /** Producer children: how many jobs to enqueue, one every `intervalMs`. */
  produce?: { jobs: number; intervalMs: number };
}

export const QUEUE_CONFIG_ENV = 'BENCH_QUEUE';
