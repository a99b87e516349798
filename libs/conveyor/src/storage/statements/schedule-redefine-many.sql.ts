import { schedulesTable } from './schedules-table';
import { SqlTables, Statement } from './statement';

/**
 * Records each schedule's new definition and moves its progress mark to `since` (never back), leaving its last
 * enqueued tick alone: the ticks the new definition had before `since` are not owed (cron-scheduler.service.ts).
 */
export function scheduleRedefineMany(t: SqlTables, changes: Array<{ name: string; since: Date; definition: string }>): Statement {
  return {
    text: `
UPDATE ${schedulesTable(t)} s SET last_tick = greatest(s.last_tick, c.since), cron = c.definition, updated_at = now()
FROM unnest($1::text[], $2::timestamptz[], $3::text[]) AS c(name, since, definition)
WHERE s.name = c.name`,
    values: [changes.map((c) => c.name), changes.map((c) => c.since.toISOString()), changes.map((c) => c.definition)],
  };
}
