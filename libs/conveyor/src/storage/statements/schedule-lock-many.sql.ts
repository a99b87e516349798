import { schedulesTable } from './schedules-table';
import { SqlTables, Statement } from './statement';

/**
 * Locks the schedules' progress rows until the transaction ends, in name order, and returns each one's progress
 * mark (the newest tick accounted for), whether it is paused, and the definition it was last run by. A second
 * instance running the same round waits here, then reads the advanced ticks and finds nothing left to do.
 */
export function scheduleLockMany(t: SqlTables, names: string[]): Statement {
  return {
    text: `SELECT name, last_tick, paused, cron FROM ${schedulesTable(t)} WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE`,
    values: [names],
  };
}
