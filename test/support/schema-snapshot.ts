import type { ClientBase } from 'pg';

/** Where the checked-in snapshot lives, from the repository root. */
export const SCHEMA_SNAPSHOT_PATH = 'libs/conveyor/src/storage/schema.sql';

/** Set by `npm run schema:snapshot` (scripts/update-schema-snapshot.js): the snapshot test writes the file instead. */
export const UPDATE_SCHEMA_SNAPSHOT_ENV = 'CONVEYOR_UPDATE_SCHEMA_SNAPSHOT';

/** Stands for the schema Conveyor is installed in, wherever the snapshot names it. */
export const SCHEMA_PLACEHOLDER = '{schema}';

const HEADER = `-- Conveyor's schema as PostgreSQL reports it after every migration has run: read from the catalogs of a freshly
-- migrated schema by test/support/schema-snapshot.ts. Do not edit; regenerate with \`npm run schema:snapshot\`
-- (test/engine/schema-snapshot.e2e-spec.ts fails when the migrations and this file disagree).
-- ${SCHEMA_PLACEHOLDER} stands for the schema Conveyor runs in (the DataSource's schema).
`;

/**
 * The schema `schema` as PostgreSQL reports it, as SQL a reader can follow: the migrations applied, then the
 * functions, then each table with its columns and constraints, storage options, indexes and triggers.
 *
 * Everything is deparsed by PostgreSQL itself (format_type, pg_get_expr, pg_get_constraintdef, pg_get_indexdef,
 * pg_get_functiondef, pg_get_triggerdef) and listed in name order, so the text changes only when the schema does.
 * It reads with `search_path` set to pg_catalog alone, so every name in the schema comes out qualified, and then
 * the schema's name (quoted or not) becomes {@link SCHEMA_PLACEHOLDER}. NOT NULL constraints, which PostgreSQL 18
 * also lists in pg_constraint, are shown on their columns only, so one snapshot holds for PostgreSQL 15 to 18.
 */
export async function schemaSnapshot(client: ClientBase, schema: string): Promise<string> {
  await client.query('BEGIN READ ONLY');
  try {
    await client.query('SET LOCAL search_path TO pg_catalog');
    const sections = [HEADER, await migrationsApplied(client, schema), ...(await functions(client, schema))];
    for (const table of await tables(client, schema)) sections.push(await tableDefinition(client, schema, table));
    return placeholderFor(schema, sections.join('\n'));
  } finally {
    await client.query('COMMIT');
  }
}

interface TableRow {
  oid: number;
  name: string;
  options: string[] | null;
}

interface ColumnRow {
  name: string;
  type: string;
  notnull: boolean;
  /** The default, or a stored generated column's expression. */
  def: string | null;
  /** pg_attribute.attidentity: 'a' always, 'd' by default, '' not an identity. */
  identity: string;
  /** pg_attribute.attgenerated: 's' stored, '' not generated. */
  generated: string;
}

async function migrationsApplied(client: ClientBase, schema: string): Promise<string> {
  const exists = await client.query(
    `SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = $1 AND c.relname = 'conveyor_migrations'`,
    [schema],
  );
  if (!exists.rowCount) return '-- Migrations applied: none\n';
  const { rows } = await client.query<{ id: number; name: string }>(
    `SELECT id, name FROM ${quoteIdent(schema)}.conveyor_migrations ORDER BY id`,
  );
  return `-- Migrations applied (${quoteIdent(schema)}.conveyor_migrations):\n${rows.map((r) => `--   ${String(r.id).padStart(4, '0')} ${r.name}`).join('\n')}\n`;
}

async function functions(client: ClientBase, schema: string): Promise<string[]> {
  const { rows } = await client.query<{ def: string }>(
    `SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = $1 ORDER BY p.proname, pg_get_function_identity_arguments(p.oid)`,
    [schema],
  );
  return rows.map((r) => `${r.def.trimEnd()};\n`);
}

async function tables(client: ClientBase, schema: string): Promise<TableRow[]> {
  const { rows } = await client.query<TableRow>(
    `SELECT c.oid, c.relname AS name, c.reloptions AS options FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
    [schema],
  );
  return rows;
}

async function tableDefinition(client: ClientBase, schema: string, table: TableRow): Promise<string> {
  const columns = await client.query<ColumnRow>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
            pg_get_expr(d.adbin, d.adrelid) AS def, a.attidentity AS identity, a.attgenerated AS generated
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [table.oid],
  );
  const constraints = await client.query<{ name: string; def: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
     WHERE conrelid = $1 AND contype <> 'n' ORDER BY conname`,
    [table.oid],
  );
  // An index that backs a constraint (the primary key) is shown by its constraint.
  const indexes = await client.query<{ def: string }>(
    `SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = $1 AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
     ORDER BY c.relname`,
    [table.oid],
  );
  const triggers = await client.query<{ def: string }>(
    `SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = $1 AND NOT tgisinternal ORDER BY tgname`,
    [table.oid],
  );
  const width = Math.max(...columns.rows.map((c) => c.name.length));
  const lines = [
    ...columns.rows.map((c) => `${c.name.padEnd(width)} ${columnAttributes(c)}`),
    ...constraints.rows.map((k) => `CONSTRAINT ${k.name} ${k.def}`),
  ];
  const options = table.options?.length ? ` WITH (${[...table.options].sort().join(', ')})` : '';
  const statements = [
    `CREATE TABLE ${quoteIdent(schema)}.${table.name} (\n${lines.map((l) => `  ${l}`).join(',\n')}\n)${options};`,
    ...indexes.rows.map((i) => `${i.def};`),
    ...triggers.rows.map((t) => `${t.def};`),
  ];
  return `${statements.join('\n')}\n`;
}

function columnAttributes(c: ColumnRow): string {
  const parts = [c.type];
  if (c.generated === 's') parts.push(`GENERATED ALWAYS AS (${c.def}) STORED`);
  else if (c.def !== null) parts.push(`DEFAULT ${c.def}`);
  if (c.identity === 'a') parts.push('GENERATED ALWAYS AS IDENTITY');
  if (c.identity === 'd') parts.push('GENERATED BY DEFAULT AS IDENTITY');
  if (c.notnull) parts.push('NOT NULL');
  return parts.join(' ');
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Replaces the schema's name, quoted or bare, by the placeholder (test schema names need no quotes). */
function placeholderFor(schema: string, text: string): string {
  return text.split(quoteIdent(schema)).join(SCHEMA_PLACEHOLDER).split(schema).join(SCHEMA_PLACEHOLDER);
}
