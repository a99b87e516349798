import { instancesTable } from './instances-table';
import { SqlTables, Statement } from './statement';

/** What an instance says about itself on every heartbeat. */
export interface InstanceReport {
  id: string;
  host: string;
  pid: number;
  version: string;
  runsWorkers: boolean;
  concurrency: number;
  running: number;
  queues: string[];
  types: string[];
  startedAt: Date;
}

/**
 * Registers the instance or refreshes its row: seen now, listed until `leaseMs` from now by the database's clock.
 * One statement on the primary key, whatever the number of instances.
 */
export function instanceUpsert(t: SqlTables, report: InstanceReport, leaseMs: number): Statement {
  return {
    text: `
INSERT INTO ${instancesTable(t)} AS i
  (id, host, pid, version, runs_workers, concurrency, running, queues, types, started_at, last_seen, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[], $9::text[], $10, now(), now() + $11 * interval '1 millisecond')
ON CONFLICT (id) DO UPDATE SET
  running = EXCLUDED.running, queues = EXCLUDED.queues, types = EXCLUDED.types,
  last_seen = EXCLUDED.last_seen, expires_at = EXCLUDED.expires_at`,
    values: [
      report.id,
      report.host,
      report.pid,
      report.version,
      report.runsWorkers,
      report.concurrency,
      report.running,
      report.queues,
      report.types,
      report.startedAt.toISOString(),
      leaseMs,
    ],
  };
}
