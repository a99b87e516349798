/** A PostgreSQL server (or just a database) that the test run uses, as chosen by globalSetup. */
export interface TestDatabaseServer {
  /** Base URL; each test file creates its own schema in this database. */
  url: string;
  /** How it was obtained, for the one line globalSetup prints. */
  description: string;
  /** Releases it at globalTeardown. */
  stop(): Promise<void>;
}
