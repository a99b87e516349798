import { Provider } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { CONVEYOR_METRICS_REGISTRY } from './metrics.constants';

/** A fresh registry per app, with Node's process metrics (CPU, memory, event loop lag, GC) on it. */
export const metricsRegistryProvider: Provider = {
  provide: CONVEYOR_METRICS_REGISTRY,
  useFactory: (): Registry => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    return registry;
  },
};
