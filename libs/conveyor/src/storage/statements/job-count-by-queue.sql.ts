import { SqlTables, Statement } from './statement';

/**
 * Jobs per queue and status, for the depth gauge: the states a backlog is made of (SCHEDULED, PENDING,
 * RETRYING, RUNNING) plus DEAD, which waits for an operator. COMPLETED and CANCELLED are left out: they
 * are history, and the bulk of a busy table. Each branch's filter is the predicate of one partial index
 * (claimable, lease, attention), so the planner can read those indexes and never touch the history.
 */
export function jobCountByQueue(t: SqlTables): Statement {
  return {
    text: `
SELECT queue, status, count(*)::int AS count FROM ${t.jobs}
WHERE status IN ('SCHEDULED','PENDING','RETRYING') GROUP BY queue, status
UNION ALL
SELECT queue, status, count(*)::int FROM ${t.jobs} WHERE status = 'RUNNING' GROUP BY queue, status
UNION ALL
SELECT queue, status, count(*)::int FROM ${t.jobs} WHERE status = 'DEAD' GROUP BY queue, status`,
    values: [],
  };
}
