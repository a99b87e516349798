import { instancesTable } from './instances-table';
import { SqlParams } from './sql-params';
import { SqlTables } from './statement';

/**
 * Deletes the rows of instances that stopped heartbeating (they died) while `fence` holds: the maintenance round's
 * proof that its caller leads (maintenance-round.sql.ts). The caller's own row is left out: its heartbeat, in the
 * same statement, rewrites it.
 */
export function instanceDeleteExpiredSql(t: SqlTables, p: SqlParams, callerId: string, fence: string): string {
  return `DELETE FROM ${instancesTable(t)} WHERE expires_at <= now() AND id <> ${p.add(callerId)} AND ${fence}`;
}
