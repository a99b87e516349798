/** Names a migration's SQL may use; all are already escaped. */
export interface MigrationContext {
  schema: string;
  jobs: string;
  queues: string;
  leadership: string;
  /** Escaped `schema.conveyor_live_watch`. */
  liveWatch: string;
  /** The NOTIFY channel, as an SQL string literal. */
  channelLiteral: string;
}

/** A checked-in, numbered migration. Its SQL runs inside the migrator's transaction. */
export interface Migration {
  id: number;
  name: string;
  up(ctx: MigrationContext): string;
}
