import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { ConveyorMetrics } from '../../observation/metrics/conveyor-metrics.service';
import { Public } from '../access/public.decorator';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';

/**
 * The Prometheus scrape endpoint. Open like the health probes, since scrapers carry no API key: it shows
 * queue and job type names and counts, no payloads, so keep it on the internal network.
 */
@ApiTags('metrics')
@ConveyorRoutes()
@Controller('metrics')
@Public()
export class MetricsController {
  constructor(private readonly metrics: ConveyorMetrics) {}

  @Get()
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  @ApiOperation({ summary: 'Prometheus metrics', description: 'Prometheus text exposition format.' })
  @ApiProduces(Registry.PROMETHEUS_CONTENT_TYPE)
  @ApiOkResponse({ schema: { type: 'string' }, description: 'Jobs, queue depth, pool and claim metrics, plus Node process metrics.' })
  @Header('Cache-Control', 'no-store')
  scrape(): Promise<string> {
    return this.metrics.text();
  }
}
