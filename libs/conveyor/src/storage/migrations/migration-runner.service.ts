import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../../config/conveyor.constants';
import { ConveyorOptions } from '../../config/conveyor-options.interface';
import { MigratorService } from './migrator.service';

/** Applies migrations during module init, before any worker starts (workers start at bootstrap). */
@Injectable()
export class MigrationRunner implements OnModuleInit {
  constructor(
    private readonly migrator: MigratorService,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.options.migrate) await this.migrator.migrate();
  }
}
