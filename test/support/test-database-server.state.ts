import type { TestDatabaseServer } from './test-database-server.interface';

/**
 * globalSetup and globalTeardown run in the same process but share nothing but globals, so the
 * running server is parked on `globalThis` under a registered symbol.
 */
const KEY = Symbol.for('conveyor.testDatabaseServer');

type Holder = { [KEY]?: TestDatabaseServer };

/** Remembers the server chosen by globalSetup. */
export function setTestDatabaseServer(server: TestDatabaseServer): void {
  (globalThis as Holder)[KEY] = server;
}

/** Takes the server back out, for globalTeardown; undefined if setup never got that far. */
export function takeTestDatabaseServer(): TestDatabaseServer | undefined {
  const server = (globalThis as Holder)[KEY];
  delete (globalThis as Holder)[KEY];
  return server;
}
