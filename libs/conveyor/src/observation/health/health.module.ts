import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ConsumerModule } from '../../consumer/consumer.module';
import { ConveyorHealthIndicator } from './conveyor-health.indicator';
import { EventLoopMonitor } from './event-loop-monitor.service';

/** Health indicators for orchestrators (the HTTP endpoints live in ConveyorHttpModule). */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), ConsumerModule],
  providers: [ConveyorHealthIndicator, EventLoopMonitor],
  exports: [ConveyorHealthIndicator, TerminusModule],
})
export class HealthModule {}
