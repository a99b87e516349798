import { SqlTables } from './statement';

/** Escaped `schema.conveyor_schedules` (created by migration 0003). */
export function schedulesTable(t: SqlTables): string {
  return `${t.schema}.conveyor_schedules`;
}
