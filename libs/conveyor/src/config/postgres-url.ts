/**
 * Whether `value` is a postgres:// or postgresql:// connection URL, as pg reads one: the host in the URL, or in its
 * `host` parameter for a Unix socket (`postgres://user@/db?host=/var/run/postgresql`).
 */
export function isPostgresUrl(value: unknown): boolean {
  return typeof value === 'string' && /^postgres(ql)?:\/\/./.test(value);
}
