import { createHash } from 'node:crypto';
import { conveyorTableSql } from './floor-conveyor-table.sql';
import { floorTableSql } from './floor.sql';
import type { FloorNames, FloorTableSql } from './floor-table-sql.interface';

/**
 * The table the floor works on: its own (four columns), or Conveyor's jobs table as Conveyor's migrations leave it
 * (floor-conveyor-table.sql.ts: the `floor-conveyor-table` reference, which shows what that table costs the floor).
 */
export type FloorTableKind = 'floor' | 'conveyor';

/** The table the floor works on in one schema: its names and its statements. */
export interface FloorTables extends FloorNames {
  sql: FloorTableSql;
}

/** The floor's table of `kind` in `schema` (bench schemas are lower-case letters, digits and underscores). */
export function floorTables(schema: string, kind: FloorTableKind = 'floor'): FloorTables {
  // A channel name is an identifier (63 bytes at most): a longer one is shortened with a hash, as Conveyor's are.
  const channel =
    `floor_${schema}`.length <= 63 ? `floor_${schema}` : `floor_${createHash('sha1').update(schema).digest('hex').slice(0, 12)}`;
  const names: FloorNames = {
    schema: `"${schema}"`,
    jobs: `"${schema}".${kind === 'conveyor' ? 'conveyor_jobs' : 'floor_jobs'}`,
    channel: `"${channel}"`,
  };
  return { ...names, sql: kind === 'conveyor' ? conveyorTableSql(names) : floorTableSql(names) };
}
