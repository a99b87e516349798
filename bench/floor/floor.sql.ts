import { createHash } from 'node:crypto';
import {
  conveyorTableClaim,
  conveyorTableComplete,
  conveyorTableCounts,
  conveyorTableCreateSql,
  conveyorTableInsertMany,
} from './floor-conveyor-table.sql';

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

/** Which table the floor works on in one schema, and the escaped names of its objects. */
export interface FloorTables {
  kind: FloorTableKind;
  schema: string;
  jobs: string;
  /** The channel its inserts notify, as a quoted identifier (for LISTEN). */
  channel: string;
}

/** Names for `schema` (bench schemas are lower-case letters, digits and underscores). */
export function floorTables(schema: string, kind: FloorTableKind = 'floor'): FloorTables {
  // A channel name is an identifier (63 bytes at most): a longer one is shortened with a hash, as Conveyor's are.
  const channel =
    `floor_${schema}`.length <= 63 ? `floor_${schema}` : `floor_${createHash('sha1').update(schema).digest('hex').slice(0, 12)}`;
  return {
    kind,
    schema: `"${schema}"`,
    jobs: `"${schema}".${kind === 'conveyor' ? 'conveyor_jobs' : 'floor_jobs'}`,
    channel: `"${channel}"`,
  };
}

/**
 * The whole floor schema: a plain table, a partial index on what is pending, and a per-statement
 * NOTIFY so a multi-row insert wakes workers once (as Conveyor's trigger does).
 */
export function floorCreateSql(t: FloorTables): string {
  if (t.kind === 'conveyor') return conveyorTableCreateSql(t);
  return `
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
  FOR EACH STATEMENT EXECUTE FUNCTION ${t.schema}.floor_notify();`;
}

/** Multi-row `INSERT … VALUES ($1), ($2), …`: one bind parameter per job. */
export function floorInsertMany(t: FloorTables, payloads: unknown[]): FloorStatement {
  if (t.kind === 'conveyor') return conveyorTableInsertMany(t, payloads);
  const rows = payloads.map((_, i) => `($${i + 1}::jsonb)`).join(', ');
  return { text: `INSERT INTO ${t.jobs} (payload) VALUES ${rows}`, values: payloads.map((p) => JSON.stringify(p)) };
}

/** Claims up to `limit` pending jobs, oldest first, skipping rows another worker is claiming. */
export function floorClaim(t: FloorTables, limit: number): FloorStatement {
  if (t.kind === 'conveyor') return conveyorTableClaim(t, limit);
  return {
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
  };
}

/** Marks a batch of finished jobs done. */
export function floorComplete(t: FloorTables, ids: string[]): FloorStatement {
  if (t.kind === 'conveyor') return conveyorTableComplete(t, ids);
  return { name: 'floor_complete', text: `UPDATE ${t.jobs} SET status = 'done' WHERE id = ANY($1::bigint[])`, values: [ids] };
}

/** `rows` jobs in one statement: pending (due now) or finished a day ago. */
export function floorInsertRows(t: FloorTables, rows: number, state: 'pending' | 'finished'): FloorStatement {
  // The growth cases, which insert rows this way, do not run the reference (caseRunsVariant).
  if (t.kind === 'conveyor') throw new Error('floor-conveyor-table inserts its jobs by enqueue only');
  return {
    text: `
INSERT INTO ${t.jobs} (payload, status, run_at)
SELECT '{}'::jsonb, $2, now() - interval '1 day' FROM generate_series(1, $1::int)`,
    values: [rows, state === 'pending' ? 'pending' : 'done'],
  };
}

/** How many rows there are, and how many are done. */
export function floorCounts(t: FloorTables): FloorStatement {
  if (t.kind === 'conveyor') return conveyorTableCounts(t);
  return {
    text: `SELECT count(*)::int AS total, (count(*) FILTER (WHERE status = 'done'))::int AS done FROM ${t.jobs}`,
    values: [],
  };
}
