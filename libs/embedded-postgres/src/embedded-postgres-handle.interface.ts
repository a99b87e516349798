/**
 * A running embedded PostgreSQL server, as returned by {@link startEmbeddedPostgres}.
 */
export interface EmbeddedPostgresHandle {
  /** Connection URL of the `conveyor` database, e.g. `postgres://postgres:…@127.0.0.1:54329/conveyor`. */
  url: string;
  /** Port the server listens on (127.0.0.1 only). */
  port: number;
  /**
   * Stops the server (fast shutdown: open sessions are cut) and, when not persistent, deletes the
   * data directory. Safe to call more than once.
   */
  stop(): Promise<void>;
}
