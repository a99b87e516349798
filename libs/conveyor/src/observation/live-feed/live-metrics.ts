import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';
import { CONVEYOR_METRICS_REGISTRY, METRIC_PREFIX as P } from '../metrics/metrics.constants';

/** The live-event streams of this instance, on the engine's metrics registry. */
@Injectable()
export class LiveMetrics {
  readonly connections: Gauge;
  readonly eventsSent: Counter;
  readonly slowReadersDropped: Counter;

  constructor(@Inject(CONVEYOR_METRICS_REGISTRY) registry: Registry) {
    const registers = [registry];
    this.connections = new Gauge({ name: `${P}live_connections`, help: 'Open live-event (SSE) streams on this instance.', registers });
    this.eventsSent = new Counter({ name: `${P}live_events_sent_total`, help: 'Live events written to SSE streams.', registers });
    this.slowReadersDropped = new Counter({
      name: `${P}live_slow_readers_dropped_total`,
      help: 'SSE streams closed because their reader fell too far behind.',
      registers,
    });
  }
}
