import { takeTestDatabaseServer } from './test-database-server.state';

/** Jest globalTeardown: releases the database chosen by globalSetup. */
export default async function globalTeardown(): Promise<void> {
  await takeTestDatabaseServer()?.stop();
}
