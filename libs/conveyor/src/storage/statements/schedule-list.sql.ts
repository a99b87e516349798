import { schedulesTable } from './schedules-table';
import { SqlTables, Statement } from './statement';

/** A schedule's stored state, as scheduleList and scheduleSetPaused return it. */
export interface ScheduleRow {
  name: string;
  last_tick: Date;
  enqueued_tick: Date | null;
  paused: boolean;
  paused_at: Date | null;
  /** The database's clock when the statement ran. */
  now: Date;
}

/** The stored state of the named schedules (those an instance has registered). */
export function scheduleList(t: SqlTables, names: string[]): Statement {
  return {
    text: `SELECT name, last_tick, enqueued_tick, paused, paused_at, now() AS now FROM ${schedulesTable(t)} WHERE name = ANY($1::text[])`,
    values: [names],
  };
}
