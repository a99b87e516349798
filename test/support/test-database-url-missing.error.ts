import { TEST_DATABASE_URL_ENV } from './test-database-env';

/** Thrown when a test asks for a schema but Jest's globalSetup did not choose a database. */
export class TestDatabaseUrlMissingError extends Error {
  constructor() {
    super(
      `${TEST_DATABASE_URL_ENV} is not set. Run tests through Jest with the repository's jest.config.js, ` +
        'whose globalSetup (test/support/global-setup.ts) chooses the test database.',
    );
    this.name = 'TestDatabaseUrlMissingError';
  }
}
