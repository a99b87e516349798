import { InstanceReport, instanceUpsertSql } from './instance-upsert.sql';
import { instanceDeleteExpiredSql } from './instance-delete-expired.sql';
import { jobRescueExpiredSql, RescuedRow } from './job-rescue-expired.sql';
import { leadershipClaimSql } from './leadership.sql';
import { SqlParams } from './sql-params';
import { CLOCK_MS_SQL, SqlTables, Statement } from './statement';

/** What one instance's maintenance round sends. */
export interface MaintenanceRoundRequest {
  /** The instance (its worker id), the term it holds (0 for none) and the length of a term. */
  holder: string;
  heldTerm: number;
  leaseMs: number;
  /** Its heartbeat for the instance registry, listed for `instanceLeaseMs`. */
  instance: InstanceReport;
  instanceLeaseMs: number;
  /**
   * Whether the statement also carries the leader's duties (pruning, a first batch of rescues). Without them it only
   * claims and heartbeats: the round sent again after those duties failed, so that their failure costs neither.
   */
  leaderDuties: boolean;
  /** Most jobs rescued by this statement; the leader sends jobRescueExpired for more when it came back full. */
  rescueLimit: number;
  messagePrefix: string;
}

/**
 * A row of the round's answer: the term held (null when another instance leads), once with the rescued columns null
 * when nothing was rescued, or once per rescued job; each with the database's clock (`clock_timestamp()`, epoch ms)
 * for DatabaseClock.
 */
export type MaintenanceRoundRow = { term: number | null; clock_ms: number } & { [K in keyof RescuedRow]: RescuedRow[K] | null };

/**
 * One instance's maintenance round in one statement, so that an idle instance's round costs one query, as a poll
 * does: claim or renew the leadership, write the instance's heartbeat, read the database's clock, and — only when
 * the claim returned the term — delete dead instances' rows and rescue a first batch of expired leases.
 *
 * The leader's writes are fenced by the claim in the same statement (`EXISTS (SELECT 1 FROM lead)`), not by
 * leaderFence: a statement's CTEs all read one snapshot, taken before the claim's update, so the leadership table
 * itself would not show a term this very statement began. While the claim returns a row it holds the leadership
 * row locked until the statement ends, so no other term can begin while these writes run.
 */
export function maintenanceRound(t: SqlTables, r: MaintenanceRoundRequest): Statement {
  const p = new SqlParams();
  const leads = 'EXISTS (SELECT 1 FROM lead)';
  const bookkeeping = `
WITH lead AS (${leadershipClaimSql(t, p, r.holder, r.heldTerm, r.leaseMs)}
), beat AS (${instanceUpsertSql(t, p, r.instance, r.instanceLeaseMs)}
)`;
  if (!r.leaderDuties) {
    const text = `${bookkeeping}
SELECT lead.term, NULL AS id, NULL AS status, NULL AS queue, NULL AS type, NULL AS attempts, NULL AS lost_by, ${CLOCK_MS_SQL} AS clock_ms
FROM (SELECT 1) AS one LEFT JOIN lead ON true`;
    return { text, values: p.values };
  }
  const text = `${bookkeeping}, pruned AS (${instanceDeleteExpiredSql(t, p, r.instance.id, leads)}
), rescued AS (${jobRescueExpiredSql(t, p, r.rescueLimit, r.messagePrefix, leads)}
)
SELECT lead.term, rescued.id, rescued.status, rescued.queue, rescued.type, rescued.attempts, rescued.lost_by, ${CLOCK_MS_SQL} AS clock_ms
FROM (SELECT 1) AS one LEFT JOIN lead ON true LEFT JOIN rescued ON true`;
  return { text, values: p.values };
}
