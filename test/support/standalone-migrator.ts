import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { ConveyorDatabase } from '@conveyor/core/storage/connections/conveyor-database.service';
import { MigratorService } from '@conveyor/core/storage/migrations/migrator.service';

/**
 * The engine's migrator for `schema`, on a plain pg pool: no Nest app and no TypeORM, since migrating needs
 * neither. Each call is one "instance"; two of them migrating at once behave as two starting services would.
 */
export function standaloneMigrator(pool: Pool, schema: string): MigratorService {
  return new MigratorService(new ConveyorDatabase({ options: { schema }, driver: { master: pool } } as unknown as DataSource));
}
