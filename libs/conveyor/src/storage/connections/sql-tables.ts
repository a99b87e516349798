import { createHash } from 'node:crypto';
import { quoteIdent } from './quote';

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
  /** Escaped `schema.conveyor_migrations`: the ids and names of the migrations applied. */
  migrations: string;
  key: string;
}

/** Conveyor's tables in `schema` (unescaped), each name escaped once here. */
export function sqlTablesFor(schema: string): SqlTables {
  const s = quoteIdent(schema);
  return {
    schema: s,
    jobs: `${s}.conveyor_jobs`,
    queues: `${s}.conveyor_queues`,
    leadership: `${s}.conveyor_leadership`,
    liveWatch: `${s}.conveyor_live_watch`,
    migrations: `${s}.conveyor_migrations`,
    key: shortHash(schema),
  };
}

/** A short, stable digest of `text`, for names that must stay within PostgreSQL's 63 bytes. */
function shortHash(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 12);
}

/** NOTIFY channel for a schema; channel names are identifiers, so at most 63 bytes. */
export function channelFor(schema: string, prefix = 'conveyor'): string {
  const name = `${prefix}:${schema}`;
  return Buffer.byteLength(name) <= 63 ? name : `${prefix}:${shortHash(schema)}`;
}
