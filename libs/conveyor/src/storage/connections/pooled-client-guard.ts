import { Logger } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { PoolerMode } from '../../config/pooler-mode';
import { setSessionFormats } from './session-formats';

/** Idle time after which TCP keepalive starts probing a connection (a peer gone without a word is found). */
export const KEEPALIVE_IDLE_MS = 10_000;

const guarded = new WeakSet<PoolClient>();
const GUARD = Symbol('conveyor.pooledClientGuard');
const logger = new Logger('Conveyor:Database');

/**
 * Makes every connection of `pool` safe to hold. pg's pool listens for a connection's 'error' only while the
 * connection is idle in the pool; while it is checked out (by the engine, TypeORM or the host app) and no
 * statement is running on it, a server that goes away (a restart: 57P01 "terminating connection due to
 * administrator command") makes it emit 'error' with no listener, which ends the process. Each connection
 * therefore gets a listener of its own for its whole life, the first time it is handed out; the error then
 * surfaces where it belongs, on the connection's next statement, and the pool discards the connection when it
 * is released. Each also gets TCP keepalive, and the session formats the engine reads (sessionFormatsSql).
 */
export function guardPooledClients(pool: Pool | undefined, pooler: PoolerMode): void {
  if (!pool || (pool as Pool & { [GUARD]?: true })[GUARD]) return;
  (pool as Pool & { [GUARD]?: true })[GUARD] = true;
  pool.on('acquire', (client) => guardClient(client, pooler));
}

function guardClient(client: PoolClient, pooler: PoolerMode): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.on('error', (err) => logger.warn(`A pooled database connection failed: ${err.message}`));
  const socket = (client as unknown as { connection?: { stream?: { setKeepAlive?(enable: boolean, delayMs: number): void } } }).connection
    ?.stream;
  socket?.setKeepAlive?.(true, KEEPALIVE_IDLE_MS);
  setSessionFormats(client, pooler);
}
