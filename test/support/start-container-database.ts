import type { TestDatabaseServer } from './test-database-server.interface';

/**
 * Starts `postgres:15` with Testcontainers. The data lives on a tmpfs and fsync is off: the
 * container is thrown away after the run, so durability would only cost time.
 */
export async function startContainerDatabase(dockerHost: string): Promise<TestDatabaseServer> {
  // Testcontainers picks its socket by file existence alone; point it at the one that answered.
  process.env.DOCKER_HOST ??= dockerHost;
  // Loaded only on this path: it pulls in a large dependency tree that the other paths don't need.
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer('postgres:15')
    .withDatabase('conveyor')
    .withTmpFs({ '/var/lib/postgresql/data': 'rw' })
    .withCommand(['postgres', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'])
    .start();
  return {
    url: container.getConnectionUri(),
    description: `Testcontainers postgres:15 via ${dockerHost}`,
    stop: async () => {
      await container.stop();
    },
  };
}
