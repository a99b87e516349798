import { channelFor } from '../connections/conveyor-database.service';
import { quoteLiteral } from '../connections/quote';
import { sqlTablesFor } from '../connections/sql-tables';
import { Migration, MigrationContext } from './migration.interface';
import { MIGRATIONS } from './migrations';

/** What a migration's SQL is written against in `schema` (unescaped): its tables and its NOTIFY channel. */
export function migrationContext(schema: string): MigrationContext {
  const tables = sqlTablesFor(schema);
  return {
    schema: tables.schema,
    jobs: tables.jobs,
    queues: tables.queues,
    leadership: tables.leadership,
    liveWatch: tables.liveWatch,
    channelLiteral: quoteLiteral(channelFor(schema)),
  };
}

/** The table of applied migrations, made before any migration runs. */
export function createMigrationsTableSql(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${sqlTablesFor(schema).migrations} (
  id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;
}

/** The row that records `migration` as applied in `schema`. */
export function recordedSql(schema: string, migration: Migration): string {
  return `INSERT INTO ${sqlTablesFor(schema).migrations} (id, name) VALUES (${migration.id}, ${quoteLiteral(migration.name)})`;
}

/** Which migrations a script holds. */
export interface MigrationScriptOptions {
  /** Schema of Conveyor's tables (default `public`), as the DataSource names it. */
  schema?: string;
  /** Only the migrations with a higher id: the highest id in the schema's `conveyor_migrations`, for an upgrade. */
  after?: number;
}

/**
 * Conveyor's migrations as one SQL script, for a host that applies its schema with its own tool and runs Conveyor
 * with `migrate: false`: the schema and the table of applied migrations if missing, then each migration after
 * `after` followed by the row that records it, exactly as the start-up migrator applies them. Run it in one
 * transaction. Readiness reports the schema current once every migration of the running build is recorded.
 */
export function conveyorMigrationScript(options: MigrationScriptOptions = {}): string {
  const schema = options.schema ?? 'public';
  const after = options.after ?? 0;
  if (!Number.isInteger(after) || after < 0) throw new RangeError(`after must be a migration id (an integer from 0), got ${after}`);
  const ctx = migrationContext(schema);
  const parts = [`CREATE SCHEMA IF NOT EXISTS ${ctx.schema};`, `${createMigrationsTableSql(schema)};`];
  for (const migration of MIGRATIONS.filter((m) => m.id > after)) {
    parts.push(`-- Migration ${migration.id}: ${migration.name}\n${terminated(migration.up(ctx))}`, `${recordedSql(schema, migration)};`);
  }
  return `${parts.join('\n\n')}\n`;
}

/** A migration's SQL ending with a semicolon, so the next statement can follow it. */
function terminated(sql: string): string {
  const trimmed = sql.trim();
  return trimmed.endsWith(';') ? trimmed : `${trimmed};`;
}
