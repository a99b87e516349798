import { instancesTable } from './instances-table';
import { SqlTables, Statement } from './statement';

/** An instance's row as instanceList returns it. */
export interface InstanceRow {
  id: string;
  host: string;
  pid: number;
  version: string;
  runs_workers: boolean;
  concurrency: number;
  running: number;
  queues: string[];
  types: string[];
  started_at: Date;
  last_seen: Date;
  expires_at: Date;
  leader: boolean;
}

/**
 * The live instances (lease not expired), oldest first. `leader` is read from the leadership row itself, not from
 * what the instance said at its last heartbeat, so the list never shows two leaders, nor a leader whose term ended.
 */
export function instanceList(t: SqlTables): Statement {
  return {
    text: `
SELECT i.id, i.host, i.pid, i.version, i.runs_workers, i.concurrency, i.running, i.queues, i.types,
       i.started_at, i.last_seen, i.expires_at,
       EXISTS (SELECT 1 FROM ${t.leadership} l WHERE l.holder = i.id AND l.expires_at > now()) AS leader
FROM ${instancesTable(t)} i
WHERE i.expires_at > now()
ORDER BY i.started_at, i.id`,
    values: [],
  };
}
