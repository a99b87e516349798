import { schedulesTable } from './schedules-table';
import { SqlTables, Statement } from './statement';

/**
 * Records schedules seen for the first time, as enqueued up to now: a new schedule starts from its next
 * tick, never with a backlog. Known schedules are left alone. Rows go in name order, the same order the
 * lock takes them in, so instances starting together cannot deadlock.
 */
export function scheduleInsertMissing(t: SqlTables, schedules: Array<{ name: string; cron: string }>): Statement {
  return {
    text: `
INSERT INTO ${schedulesTable(t)} (name, cron, last_tick)
SELECT s.name, s.cron, now() FROM unnest($1::text[], $2::text[]) AS s(name, cron)
ORDER BY s.name
ON CONFLICT (name) DO NOTHING`,
    values: [schedules.map((s) => s.name), schedules.map((s) => s.cron)],
  };
}
