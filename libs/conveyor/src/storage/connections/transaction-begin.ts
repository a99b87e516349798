/**
 * Longest the server keeps one of the engine's transactions open while it waits for the next statement; past it,
 * PostgreSQL ends the session (and with it the transaction and its locks).
 *
 * A host cut off between two statements of a transaction, by a network that silently drops its packets, leaves its
 * server session idle in that transaction, holding its locks (a cron schedule's row, new rows' unique keys) until
 * TCP gives up on the dead peer, many minutes later; every other instance that needs those locks waits as long.
 * The engine's statements in a transaction follow each other with only Node's work between them; the most of it is a
 * cron round's computing the ticks its schedules owe, which near some daylight-saving changes takes seconds per
 * schedule (cron-parser fails slowly, then the zone's wall clock is read). The limit leaves room for that and for a
 * busy event loop: a transaction ended here fails the whole round, which is tried again after a pause.
 */
export const TRANSACTION_IDLE_LIMIT_MS = 15_000;

/**
 * Opens a READ COMMITTED transaction whatever the role's or database's default isolation (the engine's statements
 * rely on re-reading a row changed meanwhile, see workerSessionSql), whose session the server ends once it idles in
 * it for {@link TRANSACTION_IDLE_LIMIT_MS}, or for the role's or server's own limit when that is shorter (the setting
 * is in ms in `pg_settings`, 0 for none). One simple-protocol message of two statements, so it costs no extra round
 * trip; the setting is transaction-local (`set_config(…, true)`), so behind a transaction pooler nothing is left on
 * the server connection for its next client.
 */
export const TRANSACTION_BEGIN_SQL =
  `BEGIN ISOLATION LEVEL READ COMMITTED; SELECT set_config('idle_in_transaction_session_timeout', '${TRANSACTION_IDLE_LIMIT_MS}', true) ` +
  `FROM pg_settings WHERE name = 'idle_in_transaction_session_timeout' ` +
  `AND (setting::bigint = 0 OR setting::bigint > ${TRANSACTION_IDLE_LIMIT_MS})`;
