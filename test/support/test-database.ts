import { Client } from 'pg';
import { TEST_DATABASE_URL_ENV } from './test-database-env';
import { TestDatabaseUrlMissingError } from './test-database-url-missing.error';
import { testSchemaName } from './test-schema-name';

/** A schema of its own for one test file, in the run's test database. */
export interface TestSchema {
  /**
   * The test database's URL with `search_path` set to the schema, so a plain `pg` client lands in
   * it. Tools that rebuild the connection from its parts (TypeORM) drop that option: give them
   * `schema` explicitly.
   */
  url: string;
  /** The schema's name; already safe to use unquoted. */
  schema: string;
  /** Drops the schema and everything in it (CASCADE). Safe to call twice. */
  drop(): Promise<void>;
}

/**
 * Creates a new, empty, uniquely named schema (`t_<label>_<random>`) in the database chosen by
 * globalSetup. Isolation per test file comes from the schema, not from a database per file:
 * creating a schema takes milliseconds, and the engine creates its tables in it with its own
 * migrations.
 */
export async function createTestSchema(label: string): Promise<TestSchema> {
  const baseUrl = process.env[TEST_DATABASE_URL_ENV];
  if (!baseUrl) throw new TestDatabaseUrlMissingError();
  // DDL takes no bind parameters; the name is safe to interpolate because testSchemaName only
  // produces lower-case letters, digits and underscores.
  const schema = testSchemaName(label);
  await execute(baseUrl, `CREATE SCHEMA ${schema}`);
  let dropped: Promise<void> | undefined;
  return {
    url: withSearchPath(baseUrl, schema),
    schema,
    drop: () => (dropped ??= execute(baseUrl, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)),
  };
}

async function execute(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Adds `-c search_path=<schema>` to the URL's `options` startup parameter, keeping any others. */
function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options');
  parsed.searchParams.set('options', [options, `-c search_path=${schema}`].filter(Boolean).join(' '));
  return parsed.toString();
}
