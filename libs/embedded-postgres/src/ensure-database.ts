import { Client, type ClientConfig } from 'pg';

/** PostgreSQL's SQLSTATE for "database already exists". */
const DUPLICATE_DATABASE = '42P04';

/**
 * Creates database `name` unless it exists. `connection` must point at a database that does exist
 * (the cluster's `postgres` one). Two processes racing to create it both succeed.
 */
export async function ensureDatabase(connection: ClientConfig, name: string): Promise<void> {
  const client = new Client(connection);
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return;
    // CREATE DATABASE takes no bind parameters; the name is escaped as an identifier instead.
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`).catch((error: { code?: string }) => {
      if (error.code !== DUPLICATE_DATABASE) throw error;
    });
  } finally {
    await client.end();
  }
}
