import { ConfigurableModuleBuilder } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { CONVEYOR_HTTP_MOUNT_PATH } from './options/conveyor-http.constants';
import { ConveyorHttpOptions } from './options/conveyor-http-options.interface';
import { normalizeMountPath } from './platform/mount-path';

/** Options that shape the module itself, so they must be known before any factory runs. */
export interface ConveyorHttpModuleExtras {
  /**
   * Path every Conveyor route is served under (the API, health, metrics, the dashboard and the docs), e.g.
   * `'jobs-api'` for `/jobs-api/jobs` and `/jobs-api/dashboard`; added after the app's global prefix, if any.
   * Default: none, the routes sit at the root.
   */
  path?: string;
}

/**
 * `ConveyorHttpModule.forRoot(options)` / `forRootAsync({ useFactory, inject, imports })`, both with the extra
 * `path`. Importing the class itself still works and means no API keys, no rate limit and no path.
 * The path is registered with Nest's RouterModule, so it reads like any module prefix: OpenAPI and
 * `app.setGlobalPrefix()` compose with it.
 */
export const {
  ConfigurableModuleClass: ConveyorHttpConfigurableModule,
  MODULE_OPTIONS_TOKEN: CONVEYOR_HTTP_MODULE_INPUT,
  OPTIONS_TYPE: CONVEYOR_HTTP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: CONVEYOR_HTTP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<ConveyorHttpOptions>({ moduleName: 'ConveyorHttp' })
  .setClassMethodName('forRoot')
  .setExtras<ConveyorHttpModuleExtras>({ path: undefined }, (definition, extras) => {
    const path = normalizeMountPath(extras.path);
    if (!path) return definition;
    return {
      ...definition,
      imports: [...(definition.imports ?? []), RouterModule.register([{ path, module: definition.module }])],
      providers: [...(definition.providers ?? []), { provide: CONVEYOR_HTTP_MOUNT_PATH, useValue: path }],
    };
  })
  .build();
