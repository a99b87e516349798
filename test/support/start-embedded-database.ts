import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Relative import on purpose: Jest applies moduleNameMapper to test files but not to globalSetup.
import { startEmbeddedPostgres } from '../../libs/embedded-postgres/src';
import type { TestDatabaseServer } from './test-database-server.interface';

/**
 * Starts a throwaway embedded PostgreSQL in a fresh temp folder, removed again on `stop()`.
 */
export async function startEmbeddedDatabase(): Promise<TestDatabaseServer> {
  const root = await mkdtemp(join(tmpdir(), 'conveyor-test-pg-'));
  // mkdtemp makes the folder 0700; run as root, the server is the `postgres` OS user and must
  // be able to enter it to reach its data directory inside.
  await chmod(root, 0o755);
  const dataDir = join(root, 'pgdata');
  try {
    const server = await startEmbeddedPostgres({ dataDir, persistent: false });
    return {
      url: server.url,
      description: `embedded PostgreSQL on port ${server.port}, data in ${dataDir} (removed at teardown)`,
      stop: async () => {
        await server.stop();
        await rm(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}
