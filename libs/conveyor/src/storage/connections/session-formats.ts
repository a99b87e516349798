import type { Client, PoolClient } from 'pg';
import { PoolerMode } from '../../config/pooler-mode';

const DATE_STYLE = `set_config('DateStyle', 'ISO', false)`;
const FLOAT_DIGITS = `set_config('extra_float_digits', '1', false)`;
const READ_COMMITTED = `set_config('default_transaction_isolation', 'read committed', false)`;

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
 * Set on the session (`set_config(…, false)`): once per connection, before its first statement. Behind a transaction
 * pooler only `DateStyle`, which PgBouncer tracks per client and sets on each server connection it hands over; a
 * setting it does not track would stay on the server connection for its other clients (and leave this one), so there
 * the database's own `extra_float_digits` applies. Pooled connections are the host app's too; these change only how
 * values are written, and TypeORM's own timestamps need ISO as much.
 */
export function sessionFormatsSql(pooler: PoolerMode): string {
  return pooler === 'none' ? `SELECT ${DATE_STYLE}, ${FLOAT_DIGITS}` : `SELECT ${DATE_STYLE}`;
}

/**
 * sessionFormatsSql and, on a session of its own, READ COMMITTED, for the worker connection, which only the engine
 * uses. Its claims and outcome writes are written for READ COMMITTED: a row another transaction changed meanwhile is
 * read again in its new version (a claim skips it, an outcome write finds it CANCELLED). Under a role's or database's
 * REPEATABLE READ or SERIALIZABLE, PostgreSQL fails the whole statement instead ("could not serialize access"), a
 * claim or a batch of outcomes as a whole, each time two instances meet on a row. Pooled connections keep the
 * database's isolation, which a host app sharing them may rely on; the engine's transactions say theirs
 * (TRANSACTION_BEGIN_SQL). Behind a transaction pooler, which does not track the setting, the database's applies.
 */
export function workerSessionSql(pooler: PoolerMode): string {
  return pooler === 'none' ? `${sessionFormatsSql(pooler)}, ${READ_COMMITTED}` : sessionFormatsSql(pooler);
}

/**
 * Sends sessionFormatsSql on `client` ahead of anything queued after this call (pg runs a connection's statements in
 * the order they were given). Its failure is the connection's: the statement queued next fails the same way.
 */
export function setSessionFormats(client: Client | PoolClient, pooler: PoolerMode): void {
  client.query(sessionFormatsSql(pooler)).catch(() => undefined);
}
