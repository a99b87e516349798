/**
 * The fixed settings of an embedded cluster, in one place.
 *
 * The password is not a secret: the server listens on 127.0.0.1 only and exists for development
 * and tests. It still is a password (not `trust`) so that code paths that send credentials are
 * exercised the same way as against a real server.
 */
export const EMBEDDED_POSTGRES_DEFAULTS = {
  database: 'conveyor',
  user: 'postgres',
  password: 'conveyor',
  host: '127.0.0.1',
  /** UTF8 regardless of the host's locale: with no LANG set, initdb would otherwise pick SQL_ASCII. */
  initdbFlags: ['--encoding=UTF8', '--locale=C'],
  postgresFlags: [
    '-c',
    'listen_addresses=127.0.0.1',
    // No Unix socket: the default socket directory may be unwritable for the `postgres` OS user,
    // and a socket named after the port could collide with a system server on the same port.
    '-c',
    'unix_socket_directories=',
  ],
  /** Only for throwaway clusters: a crash of the OS is the only thing fsync protects against. */
  throwawayInitdbFlags: ['--no-sync'],
  throwawayPostgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
  /** How long to wait for an orphaned server from a killed earlier run to shut down. */
  orphanShutdownTimeoutMs: 30_000,
} as const;
