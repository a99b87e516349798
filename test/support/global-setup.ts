import { detectContainerRuntime } from './detect-container-runtime';
import { startContainerDatabase } from './start-container-database';
import { startEmbeddedDatabase } from './start-embedded-database';
import { EXTERNAL_TEST_DATABASE_URL_ENV, TEST_DATABASE_URL_ENV } from './test-database-env';
import type { TestDatabaseServer } from './test-database-server.interface';
import { setTestDatabaseServer } from './test-database-server.state';

/**
 * Jest globalSetup: chooses the PostgreSQL the whole run uses, in this order:
 * 1. `TEST_DATABASE_URL`, when set (CI's service database, a developer's own server);
 * 2. Testcontainers, but only if a container runtime answers a ping within a second;
 * 3. an embedded PostgreSQL from node_modules in a temp folder — needs nothing installed.
 * The URL is published as `CONVEYOR_TEST_DATABASE_URL`; test files carve their own schema out
 * of it with `createTestSchema`.
 */
export default async function globalSetup(): Promise<void> {
  const startedAt = Date.now();
  const server = await chooseServer();
  setTestDatabaseServer(server);
  process.env[TEST_DATABASE_URL_ENV] = server.url;
  console.log(`\n[test database] ${server.description} — ready in ${Date.now() - startedAt} ms`);
}

async function chooseServer(): Promise<TestDatabaseServer> {
  const external = process.env[EXTERNAL_TEST_DATABASE_URL_ENV];
  if (external) {
    const description = `${EXTERNAL_TEST_DATABASE_URL_ENV} (${redact(external)})`;
    return { url: external, description, stop: async () => undefined };
  }
  const detectStartedAt = Date.now();
  const dockerHost = await detectContainerRuntime();
  if (dockerHost) return startContainerDatabase(dockerHost);
  const embeddedStartedAt = Date.now();
  const server = await startEmbeddedDatabase();
  const timings = `container runtime check ${embeddedStartedAt - detectStartedAt} ms (none answered), embedded start ${Date.now() - embeddedStartedAt} ms`;
  return { ...server, description: `${server.description}; ${timings}` };
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'unparseable URL';
  }
}
