import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { HandlerExplorer } from './handler-explorer.service';
import { HandlerRegistry } from './handler-registry.service';

/** The handler registry: @JobHandler classes are the strategy providers it discovers and looks up by type. */
@Module({
  imports: [DiscoveryModule],
  providers: [HandlerRegistry, HandlerExplorer],
  exports: [HandlerRegistry],
})
export class HandlersModule {}
