import { STATEMENT_DEADLINE_MS } from './sql-runner.interface';

/**
 * Longest the server keeps one of the engine's transactions open while it waits for the next statement; past it,
 * PostgreSQL ends the session (and with it the transaction and its locks).
 *
 * A host cut off between two statements of a transaction, by a network that silently drops its packets, leaves its
 * server session idle in that transaction, holding its locks (a cron schedule's row, new rows' unique keys) until
 * TCP gives up on the dead peer, many minutes later; every other instance that needs those locks waits as long.
 * The engine's own statements follow each other at once, and the client abandons a statement that goes unanswered
 * for {@link STATEMENT_DEADLINE_MS}: a session whose client has been silent that long mid-transaction has lost it.
 */
export const TRANSACTION_IDLE_LIMIT_MS = STATEMENT_DEADLINE_MS;

/**
 * Opens a transaction whose session the server ends once it idles in it for {@link TRANSACTION_IDLE_LIMIT_MS}. One
 * simple-protocol message of two statements, so it costs no extra round trip; `SET LOCAL` lasts only as long as the
 * transaction, so behind a transaction pooler nothing is left on the server connection for its next client.
 */
export const TRANSACTION_BEGIN_SQL = `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${TRANSACTION_IDLE_LIMIT_MS}`;
