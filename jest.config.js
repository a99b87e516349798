// @ts-check
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

// The repository's .swcrc (legacy decorators + decorator metadata, which Nest's DI needs), passed
// explicitly: @swc/jest only finds it on its own when Jest is started from the repository root.
// `swcrc: false` stops swc from merging the file in a second time.
const { $schema: _schema, ...swcOptions } = JSON.parse(readFileSync(join(__dirname, '.swcrc'), 'utf8'));

/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  // Unit specs sit next to their code; cross-cutting integration and end-to-end tests live in test/.
  testMatch: ['**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  transform: { '^.+\\.(t|j)s$': ['@swc/jest', { ...swcOptions, swcrc: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  // Mirrors "paths" in tsconfig.json.
  moduleNameMapper: {
    '^@conveyor/core$': '<rootDir>/libs/conveyor/src',
    '^@conveyor/core/(.*)$': '<rootDir>/libs/conveyor/src/$1',
    '^@conveyor/embedded-postgres$': '<rootDir>/libs/embedded-postgres/src',
    '^@conveyor/client$': '<rootDir>/libs/client/src',
  },
  // Chooses the PostgreSQL for the whole run: TEST_DATABASE_URL, Testcontainers or embedded.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Integration tests start servers and wait on real PostgreSQL; 2-core CI machines are slow.
  testTimeout: 60_000,
  detectOpenHandles: false,
};
