import { Module } from '@nestjs/common';
import { ConsumerModule } from '../../consumer/consumer.module';
import { MaintenanceModule } from '../../maintenance/maintenance.module';
import { ConveyorMetrics } from './conveyor-metrics.service';
import { CONVEYOR_METRICS_REGISTRY } from './metrics.constants';
import { metricsRegistryProvider } from './metrics-registry.provider';
import { QueueGaugesReader } from './queue-gauges.reader';

/**
 * Prometheus metrics of the engine, collected whether or not anything serves them; the scrape endpoint
 * is `GET /metrics` in ConveyorHttpModule.
 */
@Module({
  imports: [ConsumerModule, MaintenanceModule],
  providers: [metricsRegistryProvider, QueueGaugesReader, ConveyorMetrics],
  exports: [CONVEYOR_METRICS_REGISTRY, ConveyorMetrics],
})
export class MetricsModule {}
