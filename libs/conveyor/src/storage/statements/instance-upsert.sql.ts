import { instancesTable } from './instances-table';
import { SqlParams } from './sql-params';
import { SqlTables } from './statement';

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
 * One statement on the primary key, whatever the number of instances; its values are added to `p`, as it runs
 * inside the maintenance round (maintenance-round.sql.ts).
 */
export function instanceUpsertSql(t: SqlTables, p: SqlParams, report: InstanceReport, leaseMs: number): string {
  const v = [report.id, report.host, report.pid, report.version, report.runsWorkers, report.concurrency, report.running].map((value) =>
    p.add(value),
  );
  const lists = `${p.add(report.queues)}::text[], ${p.add(report.types)}::text[]`;
  return `
INSERT INTO ${instancesTable(t)} AS i
  (id, host, pid, version, runs_workers, concurrency, running, queues, types, started_at, last_seen, expires_at)
VALUES (${v.join(', ')}, ${lists}, ${p.add(report.startedAt.toISOString())}, now(),
        now() + ${p.add(leaseMs)} * interval '1 millisecond')
ON CONFLICT (id) DO UPDATE SET
  running = EXCLUDED.running, queues = EXCLUDED.queues, types = EXCLUDED.types,
  last_seen = EXCLUDED.last_seen, expires_at = EXCLUDED.expires_at`;
}
