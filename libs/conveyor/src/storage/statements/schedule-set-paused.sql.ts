import { schedulesTable } from './schedules-table';
import { SqlTables, Statement } from './statement';

/**
 * Pauses or resumes a schedule, registering it first if no instance has yet. Resuming a paused schedule moves its
 * progress mark to now, so the ticks that fell while it was paused are never enqueued (no back-fill); resuming one
 * that is not paused changes nothing, so a tick about to be enqueued is not lost. The row lock this update takes is
 * the one the timekeeper's round takes, so a round sees the schedule either paused or resumed, never half of it.
 */
export function scheduleSetPaused(t: SqlTables, name: string, cron: string, paused: boolean): Statement {
  return {
    text: `
INSERT INTO ${schedulesTable(t)} AS s (name, cron, last_tick, paused, paused_at)
VALUES ($1, $2, now(), $3, CASE WHEN $3 THEN now() END)
ON CONFLICT (name) DO UPDATE SET
  last_tick = CASE WHEN s.paused AND NOT $3 THEN greatest(s.last_tick, now()) ELSE s.last_tick END,
  paused_at = CASE WHEN NOT $3 THEN NULL WHEN s.paused THEN s.paused_at ELSE now() END,
  paused = $3,
  updated_at = now()
RETURNING name, last_tick, enqueued_tick, paused, paused_at, now() AS now`,
    values: [name, cron, paused],
  };
}
