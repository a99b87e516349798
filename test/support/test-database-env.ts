/**
 * Environment variable through which globalSetup hands the chosen base database URL to test
 * files and to the child processes they spawn (a server under test, a crash-test worker).
 */
export const TEST_DATABASE_URL_ENV = 'CONVEYOR_TEST_DATABASE_URL';

/** Public knob: run the suite against this database instead of starting one. */
export const EXTERNAL_TEST_DATABASE_URL_ENV = 'TEST_DATABASE_URL';
