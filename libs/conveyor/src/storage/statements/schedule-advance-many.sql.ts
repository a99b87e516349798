import { schedulesTable } from './schedules-table';
import { SqlTables, Statement } from './statement';

/**
 * Records the newest tick enqueued per schedule (never moving one back), as its progress mark and as its last
 * enqueued tick, with the definition it came from (cron/schedule-ticks.ts: scheduleDefinition).
 */
export function scheduleAdvanceMany(t: SqlTables, advances: Array<{ name: string; tick: Date; cron: string }>): Statement {
  return {
    text: `
UPDATE ${schedulesTable(t)} s SET last_tick = greatest(s.last_tick, a.tick),
  enqueued_tick = greatest(s.enqueued_tick, a.tick), cron = a.cron, updated_at = now()
FROM unnest($1::text[], $2::timestamptz[], $3::text[]) AS a(name, tick, cron)
WHERE s.name = a.name`,
    values: [advances.map((a) => a.name), advances.map((a) => a.tick.toISOString()), advances.map((a) => a.cron)],
  };
}
