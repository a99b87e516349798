import { ConfigurableModuleBuilder } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { CONVEYOR_DATA_SOURCE } from './config/conveyor.constants';
import { ConveyorOptionsInput } from './config/validate-conveyor-options';

/** Options known when the module is defined (needed to wire providers, so they cannot be async). */
export interface ConveyorModuleExtras {
  /** TypeORM DataSource to store jobs in; the default one when omitted. */
  dataSourceName?: string | undefined;
}

/**
 * `ConveyorModule.forRoot(options)` / `forRootAsync({ useFactory, inject, imports })`. The module is
 * global (one engine per application) and binds Conveyor to the app's TypeORM DataSource. It registers no
 * entity with TypeORM (its tables belong to its own migrations, which a host's `synchronize` must never
 * touch) and no `ScheduleModule.forRoot()` (whether @Cron methods run is the host's choice).
 */
export const {
  ConfigurableModuleClass: ConveyorConfigurableModule,
  MODULE_OPTIONS_TOKEN: CONVEYOR_MODULE_INPUT,
  OPTIONS_TYPE: CONVEYOR_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: CONVEYOR_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<ConveyorOptionsInput>({ moduleName: 'Conveyor' })
  .setClassMethodName('forRoot')
  .setExtras<ConveyorModuleExtras>({ dataSourceName: undefined }, (definition, extras) => ({
    ...definition,
    global: true,
    providers: [...(definition.providers ?? []), { provide: CONVEYOR_DATA_SOURCE, useExisting: getDataSourceToken(extras.dataSourceName) }],
  }))
  .build();
