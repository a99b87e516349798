import { SqlTables } from './statement';

/** Escaped `schema.conveyor_instances` (see storage/schema.sql). */
export function instancesTable(t: SqlTables): string {
  return `${t.schema}.conveyor_instances`;
}
