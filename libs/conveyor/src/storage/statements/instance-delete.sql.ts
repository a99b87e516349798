import { instancesTable } from './instances-table';
import { SqlTables, Statement } from './statement';

/** Removes an instance's row: it is shutting down cleanly. */
export function instanceDelete(t: SqlTables, id: string): Statement {
  return { text: `DELETE FROM ${instancesTable(t)} WHERE id = $1`, values: [id] };
}
