import { quoteLiteral } from '../connections/quote';
import { channelFor, sqlTablesFor } from '../connections/sql-tables';
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

/**
 * Creates `schema` unless it exists. Not `CREATE SCHEMA IF NOT EXISTS`: PostgreSQL checks that statement's privilege
 * (CREATE on the database) before it looks for the schema, so it refuses a role that was given CREATE on an existing
 * schema and nothing on the database, the least a DBA hands an application, even where there is nothing to create.
 */
export function createSchemaSql(schema: string): string {
  return `DO $schema$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = ${quoteLiteral(schema)}) THEN
    CREATE SCHEMA ${sqlTablesFor(schema).schema};
  END IF;
END $schema$`;
}

/** The table of applied migrations, made before any migration runs. */
export function createMigrationsTableSql(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${sqlTablesFor(schema).migrations} (
  id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;
}

/**
 * Waits for any other migration of `schema` (an instance starting, a host's tool) and keeps others waiting until the
 * transaction ends: one migrates, the others then find its work done.
 */
export function migrationLockSql(schema: string): string {
  return `SELECT pg_advisory_xact_lock(hashtext(${quoteLiteral(`conveyor-migrate:${schema}`)}))`;
}

/** The row that records `migration` as applied in `schema`, as the script writes it (the migrator binds the values). */
function recordedSql(schema: string, migration: Migration): string {
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
 * with `migrate: false`: the start-up migrator's lock, the schema and the table of applied migrations if missing,
 * then each migration after `after` followed by the row that records it, the SQL the migrator runs. Run it in one
 * transaction (the lock is held until it ends). A migration already applied makes it fail (its objects exist, its
 * row's id is taken) and roll back. Readiness reports the schema current once every migration of the running build
 * is recorded.
 */
export function conveyorMigrationScript(options: MigrationScriptOptions = {}): string {
  const schema = options.schema ?? 'public';
  const after = options.after ?? 0;
  if (!Number.isInteger(after) || after < 0) throw new RangeError(`after must be a migration id (an integer from 0), got ${after}`);
  const ctx = migrationContext(schema);
  const parts = [`${migrationLockSql(schema)};`, `${createSchemaSql(schema)};`, `${createMigrationsTableSql(schema)};`];
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
