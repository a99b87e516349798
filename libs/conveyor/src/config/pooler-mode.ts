/**
 * What sits between the engine and PostgreSQL. `none`: the engine's connections are server sessions of their own.
 * `transaction`: a pooler in transaction mode (PgBouncer's `pool_mode = transaction`, what managed PostgreSQL
 * offers) that may run each transaction on another server connection, so the engine keeps no state in a session.
 */
export const POOLER_MODES = ['none', 'transaction'] as const;
export type PoolerMode = (typeof POOLER_MODES)[number];
