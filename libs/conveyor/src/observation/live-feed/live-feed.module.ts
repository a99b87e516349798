import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module';
import { LiveFeed } from './live-feed.service';
import { LiveListener } from './live-listener';
import { LiveMetrics } from './live-metrics';
import { LiveWatchLease } from './live-watch-lease.service';

/** Live events served by this instance (see LiveFeed); the SSE routes are in ConveyorHttpModule. */
@Module({
  imports: [MetricsModule],
  providers: [LiveFeed, LiveListener, LiveMetrics, LiveWatchLease],
  exports: [LiveFeed],
})
export class LiveFeedModule {}
