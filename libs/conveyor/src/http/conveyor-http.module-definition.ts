import { ConfigurableModuleBuilder } from '@nestjs/common';
import { ConveyorHttpOptions } from './conveyor-http-options.interface';

/**
 * `ConveyorHttpModule.forRoot(options)` / `forRootAsync({ useFactory, inject, imports })`. Importing the
 * class itself still works and means no API keys and no rate limit.
 */
export const {
  ConfigurableModuleClass: ConveyorHttpConfigurableModule,
  MODULE_OPTIONS_TOKEN: CONVEYOR_HTTP_MODULE_INPUT,
  OPTIONS_TYPE: CONVEYOR_HTTP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: CONVEYOR_HTTP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<ConveyorHttpOptions>({ moduleName: 'ConveyorHttp' }).setClassMethodName('forRoot').build();
