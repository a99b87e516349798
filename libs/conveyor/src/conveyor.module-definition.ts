import { ConfigurableModuleBuilder } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { CONVEYOR_DATA_SOURCE } from './conveyor.constants';
import { ConveyorOptionsInput } from './config/validate-conveyor-options';
import { JobEntity } from './jobs/job.entity';

/** Options known when the module is defined (needed to wire providers, so they cannot be async). */
export interface ConveyorModuleExtras {
  /** TypeORM DataSource to store jobs in; the default one when omitted. */
  dataSourceName?: string;
}

/**
 * `ConveyorModule.forRoot(options)` / `forRootAsync({ useFactory, inject, imports })`. The module is
 * global (one engine per application) and binds Conveyor to the app's TypeORM DataSource.
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
    imports: [
      ...(definition.imports ?? []),
      ScheduleModule.forRoot(),
      TypeOrmModule.forFeature([JobEntity], extras.dataSourceName),
    ],
    providers: [
      ...(definition.providers ?? []),
      { provide: CONVEYOR_DATA_SOURCE, useExisting: getDataSourceToken(extras.dataSourceName) },
    ],
  }))
  .build();
