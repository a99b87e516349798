import { Client } from 'pg';
import { createTestSchema, type TestSchema } from './test-database';

/** Runs `sql` on a fresh connection to `url` and returns the rows. */
async function query<T extends object>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function schemaExists(schema: string): Promise<boolean> {
  const rows = await query(process.env.CONVEYOR_TEST_DATABASE_URL!, 'SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  return rows.length === 1;
}

describe('createTestSchema', () => {
  const created: TestSchema[] = [];
  afterAll(async () => {
    await Promise.all(created.map((schema) => schema.drop()));
  });

  async function create(label: string): Promise<TestSchema> {
    const schema = await createTestSchema(label);
    created.push(schema);
    return schema;
  }

  it('creates an empty schema, named after the label, that its URL selects by default', async () => {
    const { schema, url } = await create('Support: test-database!');

    expect(schema).toMatch(/^t_support_test_database_[0-9a-f]{8}$/);
    expect(await schemaExists(schema)).toBe(true);
    const [{ current_schema }] = await query<{ current_schema: string }>(url, 'SELECT current_schema()');
    expect(current_schema).toBe(schema);
    const tables = await query(url, 'SELECT 1 FROM pg_tables WHERE schemaname = $1', [schema]);
    expect(tables).toHaveLength(0);
  });

  it('gives every call its own schema, so unqualified tables of two test files do not meet', async () => {
    const first = await create('same label');
    const second = await create('same label');
    expect(first.schema).not.toBe(second.schema);

    await query(first.url, 'CREATE TABLE job (id int)');
    await query(first.url, 'INSERT INTO job VALUES (1)');
    await query(second.url, 'CREATE TABLE job (id int)');

    expect(await query(first.url, 'SELECT id FROM job')).toEqual([{ id: 1 }]);
    expect(await query(second.url, 'SELECT id FROM job')).toEqual([]);
  });

  it('keeps a long label within the 63-character identifier limit', async () => {
    const { schema } = await create('x'.repeat(200));
    expect(schema.length).toBeLessThanOrEqual(63);
    expect(await schemaExists(schema)).toBe(true);
  });

  it('drop() removes the schema with its tables, and a second drop() is harmless', async () => {
    const test = await create('drop');
    await query(test.url, 'CREATE TABLE job (id int)');

    await test.drop();
    await test.drop();

    expect(await schemaExists(test.schema)).toBe(false);
  });
});
