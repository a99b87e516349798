/**
 * Thrown when the embedded PostgreSQL server (or `initdb`) fails to come up. `detail` says why; for
 * a server that exited it holds the last lines the server printed, which is where the reason is.
 */
export class EmbeddedPostgresStartError extends Error {
  constructor(
    readonly dataDir: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Embedded PostgreSQL failed to start (data directory ${dataDir}).${detail ? `\n${detail}` : ''}`, options);
    this.name = 'EmbeddedPostgresStartError';
  }
}
