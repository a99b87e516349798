import type { Client, PoolClient } from 'pg';

/**
 * Makes a session send values in the text forms the engine reads, whatever the role or database sets:
 * - `DateStyle` ISO: the only style whose timestamps carry a numeric offset. Under `SQL`, `German` or `Postgres` a
 *   timestamptz reads `28/11/2026 08:36:46.318 +0545` or `27.11.2026 21:51:46.318 EST`, which pg's parser answers
 *   with null (a zone abbreviation names no offset); claims, inserts and every job read would fail or lose their
 *   times. The order of day and month (`DMY`) is kept: the engine sends its timestamps as ISO text, read the same
 *   under any order.
 * - `extra_float_digits` 1 (PostgreSQL's default): below 0 a float8 loses digits on its way out; at -15 the
 *   database clock in ms (CLOCK_MS_SQL) reads `2e+12` and a leadership term of 15 reads 20.
 *
 * Set on the session (`set_config(…, false)`): once per connection, before its first statement. A transaction pooler
 * (PgBouncer) carries `DateStyle` over to each server connection it hands the client; it does not carry
 * `extra_float_digits`, so behind one a database's own value of that still applies. Pooled connections are the host
 * app's too; these change only how values are written, and TypeORM's own timestamps need ISO as much.
 */
export const SESSION_FORMATS_SQL = `SELECT set_config('DateStyle', 'ISO', false), set_config('extra_float_digits', '1', false)`;

/**
 * SESSION_FORMATS_SQL and READ COMMITTED, for the worker connection, which only the engine uses. Its claims and
 * outcome writes are written for READ COMMITTED: a row another transaction changed meanwhile is read again in its new
 * version (a claim skips it, an outcome write finds it CANCELLED). Under a role's or database's REPEATABLE READ or
 * SERIALIZABLE, PostgreSQL fails the whole statement instead ("could not serialize access"), a claim or a batch of
 * outcomes as a whole, each time two instances meet on a row. Pooled connections keep the database's
 * isolation, which a host app sharing them may rely on; the engine's transactions say theirs (TRANSACTION_BEGIN_SQL).
 */
export const WORKER_SESSION_SQL = `${SESSION_FORMATS_SQL}, set_config('default_transaction_isolation', 'read committed', false)`;

/**
 * Sends SESSION_FORMATS_SQL on `client` ahead of anything queued after this call (pg runs a connection's statements
 * in the order they were given). Its failure is the connection's: the statement queued next fails the same way.
 */
export function setSessionFormats(client: Client | PoolClient): void {
  client.query(SESSION_FORMATS_SQL).catch(() => undefined);
}
