import type { LoggerService } from '@nestjs/common';
import { EmbeddedPostgresOptions, startEmbeddedPostgres } from '@conveyor/embedded-postgres';
import { join } from 'node:path';
import type { AppSettings } from '../config/app-config';

/** Where the server's database is, and how to let go of it at shutdown. */
export interface ResolvedDatabase {
  /** PostgreSQL connection URL. */
  url: string;
  /** Stops the embedded server, if one was started; a no-op for an external DATABASE_URL. */
  close(): Promise<void>;
}

/** The settings that choose the database: read and checked by loadAppConfig, never from the environment here. */
export type DatabaseSettings = Pick<AppSettings, 'databaseUrl' | 'dataDir' | 'embeddedPort'>;

/**
 * Decides which PostgreSQL the server uses: `DATABASE_URL` when set, otherwise an embedded server
 * whose data persists in `CONVEYOR_DATA_DIR` (default `<cwd>/.conveyor/pgdata`), so that
 * `npm start` works on a machine with no database installed and keeps its jobs across restarts.
 * The embedded server listens on `EMBEDDED_PG_PORT`, or on a free port when that one is taken.
 * Call `close()` after the application has shut down, so that in-flight work can
 * still reach the database while it drains.
 */
export async function resolveDatabaseUrl(settings: DatabaseSettings, logger: Pick<LoggerService, 'log'>): Promise<ResolvedDatabase> {
  const external = settings.databaseUrl;
  if (external) {
    logger.log(`Using the PostgreSQL database from DATABASE_URL (${redactPassword(external)})`);
    return { url: external, close: async () => undefined };
  }

  const options = embeddedServerOptions(settings, (message) => logger.log(message));
  logger.log(`DATABASE_URL is not set: starting embedded PostgreSQL, data in ${options.dataDir}`);
  const server = await startEmbeddedPostgres(options);
  logger.log(`Embedded PostgreSQL is ready at ${server.url} (data in ${options.dataDir}, kept across restarts)`);
  return { url: server.url, close: () => server.stop() };
}

/** How the embedded server is started when DATABASE_URL is not set. */
export function embeddedServerOptions(settings: DatabaseSettings, log: (message: string) => void): EmbeddedPostgresOptions {
  return {
    dataDir: settings.dataDir ?? join(process.cwd(), '.conveyor', 'pgdata'),
    port: settings.embeddedPort,
    fallbackToFreePort: true,
    persistent: true,
    log,
  };
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
