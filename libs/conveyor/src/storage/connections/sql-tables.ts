/** Escaped table names a statement is built against, plus a key that keeps prepared-statement names unique. */
export interface SqlTables {
  /** Escaped schema name, for the schema's functions. */
  schema: string;
  jobs: string;
  queues: string;
  /** Escaped `schema.conveyor_leadership`. */
  leadership: string;
  /** Escaped `schema.conveyor_live_watch`. */
  liveWatch: string;
  key: string;
}
