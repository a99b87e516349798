import { createHash } from 'node:crypto';
import { conveyorTableSql } from './floor-conveyor-table.sql';

/** One parameterised statement, as pg takes it. */
export interface FloorStatement {
  name?: string;
  text: string;
  values: unknown[];
}

/**
 * The table the floor works on: its own (four columns), or Conveyor's jobs table as Conveyor's migrations leave it
 * (floor-conveyor-table.sql.ts: the `floor-conveyor-table` reference, which shows what that table costs the floor).
 */
export type FloorTableKind = 'floor' | 'conveyor';

/** Escaped names of the table the floor works on in one schema, and of its objects. */
export interface FloorNames {
  schema: string;
  jobs: string;
  /** The channel its inserts notify, as a quoted identifier (for LISTEN). */
  channel: string;
}

/** Every statement the floor sends, written for one table. */
export interface FloorTableSql {
  /** The table, its indexes and an insert trigger that notifies `channel` once per statement. */
  create(): string;
  /** One multi-row INSERT of these payloads. */
  insertMany(payloads: unknown[]): FloorStatement;
  /** Claims up to `limit` due jobs, skipping rows another worker is claiming. */
  claim(limit: number): FloorStatement;
  /** Marks a batch of finished jobs done. */
  complete(ids: string[]): FloorStatement;
  /** `rows` jobs in one statement: pending (due now) or finished a day ago. */
  insertRows(rows: number, state: 'pending' | 'finished'): FloorStatement;
  /** How many rows there are, and how many are done. */
  counts(): FloorStatement;
}

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

/**
 * The floor's own table: four columns, a partial index on what is pending, and a per-statement NOTIFY so a multi-row
 * insert wakes workers once (as Conveyor's trigger does). Claims take the oldest first.
 */
function floorTableSql(t: FloorNames): FloorTableSql {
  return {
    create: () => `
CREATE TABLE ${t.jobs} (
  id      bigserial PRIMARY KEY,
  payload jsonb NOT NULL,
  status  text NOT NULL DEFAULT 'pending',
  run_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX floor_jobs_pending ON ${t.jobs} (id) WHERE status = 'pending';
CREATE FUNCTION ${t.schema}.floor_notify() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('${t.channel.slice(1, -1)}', '');
  RETURN NULL;
END
$fn$;
CREATE TRIGGER floor_jobs_notify AFTER INSERT ON ${t.jobs}
  FOR EACH STATEMENT EXECUTE FUNCTION ${t.schema}.floor_notify();`,

    // Multi-row `INSERT … VALUES ($1), ($2), …`: one bind parameter per job.
    insertMany: (payloads) => ({
      text: `INSERT INTO ${t.jobs} (payload) VALUES ${payloads.map((_, i) => `($${i + 1}::jsonb)`).join(', ')}`,
      values: payloads.map((p) => JSON.stringify(p)),
    }),

    claim: (limit) => ({
      name: 'floor_claim',
      text: `
UPDATE ${t.jobs} SET status = 'running'
WHERE id IN (
  SELECT id FROM ${t.jobs}
  WHERE status = 'pending' AND run_at <= now()
  ORDER BY id
  FOR UPDATE SKIP LOCKED
  LIMIT $1)
RETURNING id, payload`,
      values: [limit],
    }),

    complete: (ids) => ({
      name: 'floor_complete',
      text: `UPDATE ${t.jobs} SET status = 'done' WHERE id = ANY($1::bigint[])`,
      values: [ids],
    }),

    insertRows: (rows, state) => ({
      text: `
INSERT INTO ${t.jobs} (payload, status, run_at)
SELECT '{}'::jsonb, $2, now() - interval '1 day' FROM generate_series(1, $1::int)`,
      values: [rows, state === 'pending' ? 'pending' : 'done'],
    }),

    counts: () => ({
      text: `SELECT count(*)::int AS total, (count(*) FILTER (WHERE status = 'done'))::int AS done FROM ${t.jobs}`,
      values: [],
    }),
  };
}
