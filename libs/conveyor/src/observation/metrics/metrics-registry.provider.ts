import { Provider } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { CONVEYOR_METRICS_REGISTRY } from './metrics.constants';

/**
 * How often the event-loop lag histogram samples. prom-client's default (10 ms) keeps a timer firing 100
 * times a second in an otherwise idle worker, which is most of an idle instance's CPU; each sample still measures
 * the full delay of its timer, so 100 ms loses no precision, only samples.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/** A fresh registry per app, with Node's process metrics (CPU, memory, event loop lag, GC) on it. */
export const metricsRegistryProvider: Provider = {
  provide: CONVEYOR_METRICS_REGISTRY,
  useFactory: (): Registry => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    return registry;
  },
};
