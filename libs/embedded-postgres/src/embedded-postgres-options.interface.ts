/**
 * Options for {@link startEmbeddedPostgres}.
 */
export interface EmbeddedPostgresOptions {
  /**
   * Directory holding the cluster's files. Created (with `initdb`) when it has no `PG_VERSION` yet;
   * an initialised directory is reused as it is, so its data survives restarts.
   */
  dataDir: string;
  /** TCP port on 127.0.0.1. When omitted, a free port is picked. */
  port?: number;
  /**
   * When `port` is taken, listen on a free port instead of failing. Checked after a server left
   * behind by a killed earlier run has been stopped, so that one does not count as "taken".
   */
  fallbackToFreePort?: boolean;
  /**
   * Keep the data directory when the server stops. Defaults to `true`. A non-persistent cluster is
   * deleted on `stop()` and, because its data is thrown away anyway, runs without fsync.
   */
  persistent?: boolean;
  /** Receives one line per lifecycle event and any PANIC reported by the server. Silent by default. */
  log?: (message: string) => void;
}
