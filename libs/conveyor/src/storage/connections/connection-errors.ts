import { STATEMENT_DEADLINE_CODE } from './statement-deadline';

/** The driver's SQLSTATE for a write refused because the session is read-only. */
export const READ_ONLY_SQL_TRANSACTION = '25006';

const CONNECTION_CODES = new Set([
  STATEMENT_DEADLINE_CODE, // a statement overran its deadline and its connection was abandoned
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown (pg_terminate_backend, restart)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up / shutting down)
  '53300', // too_many_connections
  // read_only_sql_transaction: the address reaches a server that cannot take writes — a standby not promoted yet,
  // or an old primary that came back as one. For the queue that is the primary being unreachable: 503 with
  // Retry-After and a retry, not a 500; and the connection is discarded (a pooled one is released with its
  // failure), so the next one goes wherever the address points by then.
  READ_ONLY_SQL_TRANSACTION,
]);

/**
 * True when a statement failed because its session cannot write. A session that began while the database's
 * `default_transaction_read_only` was on stays read-only for its whole life, and one on a standby stays on that
 * server wherever the address points later: a connection the engine keeps must be replaced, not reused.
 */
export function isReadOnlyError(err: unknown): boolean {
  return errorChain(err).some((e) => e.code === READ_ONLY_SQL_TRANSACTION);
}

/** The driver's SQLSTATE for a statement the server cancelled: its `statement_timeout`, or `pg_cancel_backend`. */
const QUERY_CANCELED = '57014';

/**
 * True when the server cancelled the statement before it finished — the role's or database's `statement_timeout`,
 * or an operator's `pg_cancel_backend`. The request may succeed when sent again; if it keeps failing, the setting is
 * shorter than what the statement needs.
 */
export function isStatementCancelled(err: unknown): boolean {
  return errorChain(err).some((e) => e.code === QUERY_CANCELED);
}

/** SQLSTATEs of text the database's encoding cannot hold: untranslatable_character, character_not_in_repertoire. */
const UNSTORABLE_TEXT_CODES = new Set(['22P05', '22021']);

/**
 * True when the database refused a value because its encoding cannot hold one of its characters: a database created
 * with another encoding than UTF8 (LATIN1, say) and a payload with a character outside it ('日'). The request cannot
 * succeed as it is, on that database.
 */
export function isUnstorableText(err: unknown): boolean {
  return errorChain(err).some((e) => typeof e.code === 'string' && UNSTORABLE_TEXT_CODES.has(e.code));
}

/**
 * True when an error means "the database can't be reached right now" rather than "this statement is wrong":
 * such errors become 503 for callers and a retry for the engine's own loops. A database closed to new sessions
 * (`ALTER DATABASE ... ALLOW_CONNECTIONS false`) is one: its refusal is matched by message, since its SQLSTATE
 * (55000, object not in prerequisite state) also names errors of statements that will not improve by waiting.
 * So is a connection not let in within its connect timeout: pg's Client says only `timeout expired` (the engine's
 * own connections, its worker connection among them, are Clients), pg's pool `timeout exceeded when trying to
 * connect` or `Connection terminated due to connection timeout`. A pooler that holds new logins (PgBouncer frozen,
 * or waiting for a server) answers so.
 */
export function isConnectionError(err: unknown): boolean {
  return errorChain(err).some((rec) => {
    if (typeof rec.code === 'string' && (CONNECTION_CODES.has(rec.code) || rec.code.startsWith('08'))) return true;
    const msg = typeof rec.message === 'string' ? rec.message : '';
    return /^timeout expired$|timeout exceeded when trying to connect|Connection terminated|connection is closed|Client has encountered a connection error|terminating connection|the database system is (starting up|shutting down)|is not currently accepting connections|Cannot use a pool after calling end/i.test(
      msg,
    );
  });
}

/**
 * An error's message with the messages of the errors it wraps (`cause`, TypeORM's `driverError`), for the log: the
 * engine's own "database unavailable" says what it means for callers, the driver's says why ("password authentication
 * failed", "unsupported startup parameter: options").
 */
export function connectionErrorText(err: unknown): string {
  const messages: string[] = [];
  for (const rec of errorChain(err)) {
    const message = typeof rec.message === 'string' && rec.message !== '' ? rec.message : String(rec);
    if (!messages.includes(message)) messages.push(message);
  }
  return messages.length > 1 ? `${messages[0]} (${messages.slice(1).join('; ')})` : (messages[0] ?? String(err));
}

/** The parts of an error the functions above read, on it and on each error it wraps. */
interface ChainedError {
  code?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
}

/** `err` and the errors it wraps (TypeORM's `driverError`, else `cause`), outermost first, at most four deep. */
function errorChain(err: unknown): ChainedError[] {
  const chain: ChainedError[] = [];
  let e = err as ChainedError | undefined;
  while (e && chain.length < 4) {
    chain.push(e);
    e = (e.driverError ?? e.cause) as ChainedError | undefined;
  }
  return chain;
}
