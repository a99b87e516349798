import type { LoggerService } from '@nestjs/common';
import { startEmbeddedPostgres } from '@conveyor/embedded-postgres';
import { join } from 'node:path';

/** Port tried first for the embedded server, chosen to sit apart from a system server's 5432. */
const DEFAULT_EMBEDDED_PORT = 54329;

/** Where the server's database is, and how to let go of it at shutdown. */
export interface ResolvedDatabase {
  /** PostgreSQL connection URL. */
  url: string;
  /** Stops the embedded server, if one was started; a no-op for an external DATABASE_URL. */
  close(): Promise<void>;
}

/**
 * Decides which PostgreSQL the server uses: `DATABASE_URL` when set, otherwise an embedded server
 * whose data persists in `CONVEYOR_DATA_DIR` (default `<cwd>/.conveyor/pgdata`), so that
 * `npm start` works on a machine with no database installed and keeps its jobs across restarts.
 * The embedded server listens on `EMBEDDED_PG_PORT` (default 54329), or on a free port when that
 * one is taken. Call `close()` after the application has shut down, so that in-flight work can
 * still reach the database while it drains.
 */
export async function resolveDatabaseUrl(logger: Pick<LoggerService, 'log'>): Promise<ResolvedDatabase> {
  const external = process.env.DATABASE_URL;
  if (external) {
    logger.log(`Using the PostgreSQL database from DATABASE_URL (${redactPassword(external)})`);
    return { url: external, close: async () => undefined };
  }

  const dataDir = process.env.CONVEYOR_DATA_DIR ?? join(process.cwd(), '.conveyor', 'pgdata');
  logger.log(`DATABASE_URL is not set: starting embedded PostgreSQL, data in ${dataDir}`);
  const server = await startEmbeddedPostgres({
    dataDir,
    port: embeddedPort(),
    fallbackToFreePort: true,
    persistent: true,
    log: (message) => logger.log(message),
  });
  logger.log(`Embedded PostgreSQL is ready at ${server.url} (data in ${dataDir}, kept across restarts)`);
  return { url: server.url, close: () => server.stop() };
}

function embeddedPort(): number {
  const configured = process.env.EMBEDDED_PG_PORT;
  if (!configured) return DEFAULT_EMBEDDED_PORT;
  const port = Number(configured);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) {
    throw new RangeError(`EMBEDDED_PG_PORT must be a TCP port number (1-65535), got "${configured}"`);
  }
  return port;
}

/** The URL with its password replaced, for logs. */
function redactPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}
