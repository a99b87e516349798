import type { Pool, PoolClient } from 'pg';

/** What pg's pool answers a `connect()` that waited `connectionTimeoutMillis` in its queue for a connection. */
const CHECKOUT_TIMEOUT = 'timeout exceeded when trying to connect';

/** pg's default pool size, for a pool created without `max`. */
const PG_DEFAULT_MAX = 10;

const checkedOut = new WeakMap<Pool, Set<PoolClient>>();

/**
 * Starts following which connections of `pool` are checked out (by the engine, TypeORM or the host app), from
 * the pool's own 'acquire' and 'release' events; call it when the pool is created. A second call does nothing.
 */
export function followPoolCheckouts(pool: Pool | undefined): void {
  if (!pool || checkedOut.has(pool)) return;
  const held = new Set<PoolClient>();
  checkedOut.set(pool, held);
  pool.on('acquire', (client) => held.add(client));
  pool.on('release', (_err, client) => held.delete(client));
  pool.on('remove', (client) => held.delete(client));
}

/**
 * True when `err` is the pool's checkout timeout and every connection the pool may have is checked out: the
 * pool is exhausted, and the database may be fine. The same timeout also reaches a request that waited while
 * the pool's connections were still being opened (the database is slow or unreachable); those connections
 * are not checked out, so that case stays a connection failure. Read at once when the timeout surfaces: the
 * pool's timer rejects the request and nothing else runs before the caller's catch.
 */
export function isPoolExhausted(err: unknown, pool: Pool | undefined): boolean {
  if (!pool || !(err instanceof Error) || err.message !== CHECKOUT_TIMEOUT) return false;
  return isPoolFull(pool);
}

/** True while every connection `pool` may have is checked out (followed since followPoolCheckouts). */
export function isPoolFull(pool: Pool | undefined): boolean {
  const held = pool && checkedOut.get(pool);
  return held !== undefined && held.size >= poolMax(pool!);
}

/** The most connections `pool` may have. */
export function poolMax(pool: Pool): number {
  return (pool as Pool & { options?: { max?: number } }).options?.max ?? PG_DEFAULT_MAX;
}
