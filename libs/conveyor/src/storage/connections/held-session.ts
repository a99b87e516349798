/**
 * Run once on each connection the engine holds open for its whole life — the worker connection and the LISTEN
 * connections — so that the server's `idle_session_timeout` (a role's, a database's, a managed service's) does not end
 * it between two jobs. Those connections idle by design: LISTEN waits for notifications, which do not count as
 * activity, and the worker connection waits for the next claim. Ended every few seconds, each would reconnect and log
 * the loss each time, and the notifications sent while the LISTEN connection is away are lost. They are few (two or
 * three per instance) and find a dead peer by themselves (keepalive, the listener's probe, statement deadlines), which
 * is what the setting is for. The setting is session-local; on a server before PostgreSQL 14, which has no such
 * setting, the statement changes nothing. Pooled connections keep the server's setting: the pool replaces one the
 * server ended.
 */
export const HELD_SESSION_SQL = `SELECT set_config('idle_session_timeout', '0', false) FROM pg_settings WHERE name = 'idle_session_timeout'`;
