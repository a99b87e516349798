/**
 * Run once on each connection the engine holds open for its whole life — the worker connection and the LISTEN
 * connections:
 * - `idle_session_timeout` off, so that the server's setting (a role's, a database's, a managed service's) does not end
 *   it between two jobs. Those connections idle by design: LISTEN waits for notifications, which do not count as
 *   activity, and the worker connection waits for the next claim. Ended every few seconds, each would reconnect and
 *   log the loss each time, and the notifications sent while the LISTEN connection is away are lost. They are few (two
 *   or three per instance) and find a dead peer by themselves (keepalive, the listener's probe, statement deadlines),
 *   which is what the setting is for.
 * - `client_connection_check_interval` at CLIENT_CHECK_MS: a statement the engine gave up (its deadline passed, the
 *   process stopped) and whose connection it closed is otherwise not stopped by the server until it ends by itself. A
 *   claim waiting on a lock would then commit later, leaving its jobs RUNNING under a claim nobody holds, each losing
 *   an attempt when its lease expires; checked, the backend finds its client gone and rolls the claim back. The
 *   backend learns of it from the connection's close, which a partition withholds; and a server that cannot watch its
 *   sockets for a close (Windows; PostgreSQL 14 outside Linux) refuses the setting, which is then left off.
 * A server before PostgreSQL 14 has neither setting, and the statement then changes nothing. Pooled connections and a
 * pooler's keep the server's settings.
 */
export const CLIENT_CHECK_MS = 1000;

/** The statement, with the check interval in ms as a parameter of its own for tests (a value the server refuses). */
export function heldSessionSql(clientCheckMs: number = CLIENT_CHECK_MS): string {
  return `DO $held$
BEGIN
  PERFORM set_config('idle_session_timeout', '0', false) FROM pg_settings WHERE name = 'idle_session_timeout';
  BEGIN
    PERFORM set_config('client_connection_check_interval', '${clientCheckMs}', false)
    FROM pg_settings WHERE name = 'client_connection_check_interval';
  EXCEPTION WHEN invalid_parameter_value THEN
    NULL;
  END;
END
$held$`;
}

export const HELD_SESSION_SQL = heldSessionSql();
