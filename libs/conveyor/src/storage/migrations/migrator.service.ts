import { Injectable, Logger } from '@nestjs/common';
import { ConveyorDatabase } from '../connections/conveyor-database.service';
import { QueryOptions } from '../connections/sql-runner.interface';
import { MigrationHistoryError } from './migration-history.error';
import { MigrationPrivilegeError } from './migration-privilege.error';
import { createMigrationsTableSql, createSchemaSql, migrationContext, migrationLockSql } from './migration-script';
import { MIGRATIONS } from './migrations';

const NO_DEADLINE: QueryOptions = { deadlineMs: Infinity };
/** PostgreSQL's undefined_table: the migrations table does not exist, so no migration was applied. */
const UNDEFINED_TABLE = '42P01';
/** No lock_timeout or statement_timeout for the rest of the transaction (`set_config(…, true)`). */
const LIFT_WAIT_LIMITS_SQL = `SELECT set_config('lock_timeout', '0', true), set_config('statement_timeout', '0', true)`;
/** PostgreSQL's insufficient_privilege: the role may not create (or change) what a migration makes. */
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * Applies the checked-in migrations at start-up.
 *
 * Safe when several instances start at once: all of it runs in one transaction that first takes a
 * transaction-scoped advisory lock keyed on the schema, so the second instance waits, then finds
 * everything applied and does nothing. A failure rolls the whole step back. Migrations are applied by id, each
 * once; a recorded id whose name is not this build's (a pre-release schema) stops start-up with
 * {@link MigrationHistoryError} rather than skipping what the schema lacks.
 */
@Injectable()
export class MigratorService {
  private readonly logger = new Logger('Conveyor:Migrator');

  constructor(private readonly db: ConveyorDatabase) {}

  /** Highest migration id this build knows. */
  get latest(): number {
    return MIGRATIONS[MIGRATIONS.length - 1].id;
  }

  async migrate(): Promise<void> {
    try {
      await this.applyMigrations();
    } catch (err) {
      if ((err as { code?: string }).code !== INSUFFICIENT_PRIVILEGE) throw err;
      const { rows } = await this.db.pool.query<{ role: string; schemaExists: boolean }>(
        `SELECT current_user AS role, EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = $1) AS "schemaExists"`,
        [this.db.schema],
      );
      throw new MigrationPrivilegeError(this.db.schema, rows[0].role, rows[0].schemaExists, { cause: err as Error });
    }
  }

  /** The migration step, in one transaction. */
  private async applyMigrations(): Promise<void> {
    const { schema } = this.db;
    const ctx = migrationContext(schema);
    await this.db.transaction(async (tx) => {
      // Another instance may be migrating (the lock waits for it), and a migration may take long: no deadline, here
      // or on the server (the role's or database's statement_timeout, lifted for the transaction). Its lock_timeout
      // would end the wait for the lock too, failing the start-up of every instance but the one migrating: it is
      // lifted for that wait only, and bounds the migrations' own waits on the tables' locks again.
      const { rows: session } = await tx.query<{ lockTimeout: string }>(`SELECT current_setting('lock_timeout') AS "lockTimeout"`);
      await tx.query(LIFT_WAIT_LIMITS_SQL);
      await tx.query(migrationLockSql(schema), [], NO_DEADLINE);
      await tx.query(`SELECT set_config('lock_timeout', $1, true)`, [session[0].lockTimeout]);
      await tx.query(createSchemaSql(schema));
      await tx.query(createMigrationsTableSql(schema));
      const { rows } = await tx.query<{ id: number; name: string }>(`SELECT id, name FROM ${this.db.migrationsTable}`);
      for (const row of rows) {
        // Ids above the newest this build knows belong to a newer build (a rolling upgrade, a rollback): fine.
        const known = MIGRATIONS.find((m) => m.id === row.id);
        if (known && known.name !== row.name) throw new MigrationHistoryError(schema, row.id, row.name, known.name);
      }
      const done = new Set(rows.map((r) => r.id));
      for (const m of MIGRATIONS) {
        if (done.has(m.id)) continue;
        await tx.query(m.up(ctx), [], NO_DEADLINE);
        await tx.query(`INSERT INTO ${this.db.migrationsTable} (id, name) VALUES ($1, $2)`, [m.id, m.name]);
        this.logger.log(`Applied migration ${m.id} ${m.name} in schema "${schema}"`);
      }
    });
  }

  /**
   * True when the database has every migration this build knows, each under its name (asked of the database, not
   * remembered). Migrations of a newer build do not matter: migrations are additive, so this build finds what it needs.
   */
  async isUpToDate(): Promise<boolean> {
    try {
      const { rows } = await this.db.pool.query<{ id: number; name: string }>(`SELECT id, name FROM ${this.db.migrationsTable}`);
      const applied = new Map(rows.map((r) => [r.id, r.name]));
      return MIGRATIONS.every((m) => applied.get(m.id) === m.name);
    } catch (err) {
      // No migrations table: none applied. Anything else (the database unreachable, say) is not an answer.
      if ((err as { code?: string }).code === UNDEFINED_TABLE) return false;
      throw err;
    }
  }
}
