import { SqlTables } from './statement';

/** Escaped `schema.conveyor_schedules` (see storage/schema.sql). */
export function schedulesTable(t: SqlTables): string {
  return `${t.schema}.conveyor_schedules`;
}
