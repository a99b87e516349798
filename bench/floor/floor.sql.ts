import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One parameterised statement, as pg takes it. */
export interface FloorStatement {
  name?: string;
  text: string;
  values: unknown[];
}

/**
 * Which table the floor's statements use: its own (four columns), or Conveyor's jobs table as Conveyor's
 * migrations leave it — the `floor-conveyor-table` reference, which shows what that table costs the floor's design.
 */
export type FloorTable = 'floor' | 'conveyor';

/** The job type of the floor's rows in Conveyor's table (a NOT NULL column there). */
const FLOOR_JOB_TYPE = 'floor';

/** Escaped names of the floor's objects in one schema. */
export interface FloorTables {
  table: FloorTable;
  schema: string;
  jobs: string;
  /** The channel its inserts notify, as a quoted identifier (for LISTEN). */
  channel: string;
}

/** Names for `schema` (bench schemas are lower-case letters, digits and underscores). */
export function floorTables(schema: string, table: FloorTable = 'floor'): FloorTables {
  const channel = `"${`floor_${schema}`.slice(0, 63)}"`;
  return { table, schema: `"${schema}"`, jobs: `"${schema}".${table === 'conveyor' ? 'conveyor_jobs' : 'floor_jobs'}`, channel };
}

/**
 * The whole floor schema: a plain table, a partial index on what is pending, and a per-statement
 * NOTIFY so a multi-row insert wakes workers once (as Conveyor's trigger does). On Conveyor's table: Conveyor's
 * schema as its migrations leave it (the checked-in snapshot, schema.sql), its insert trigger included.
 */
export function floorCreateSql(t: FloorTables): string {
  if (t.table === 'conveyor') return conveyorSchemaSql(t);
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
  // On Conveyor's table every other column takes its default (the id too: conveyor_uuid_v7()).
  const conveyor = t.table === 'conveyor';
  const rows = payloads.map((_, i) => (conveyor ? `('${FLOOR_JOB_TYPE}', $${i + 1}::jsonb)` : `($${i + 1}::jsonb)`)).join(', ');
  return {
    text: `INSERT INTO ${t.jobs} (${conveyor ? 'type, ' : ''}payload) VALUES ${rows}`,
    values: payloads.map((p) => JSON.stringify(p)),
  };
}

/**
 * Claims up to `limit` pending jobs, oldest first, skipping rows another worker is claiming. On Conveyor's table:
 * its claimable rows through its claim index, in that index's order, marked RUNNING and nothing more.
 */
export function floorClaim(t: FloorTables, limit: number): FloorStatement {
  if (t.table === 'conveyor') {
    return {
      name: 'floor_claim_conveyor_table',
      text: `
UPDATE ${t.jobs} SET status = 'RUNNING'
WHERE id IN (
  SELECT id FROM ${t.jobs}
  WHERE status IN ('SCHEDULED', 'PENDING', 'RETRYING') AND run_at <= now()
  ORDER BY priority, run_at
  FOR UPDATE SKIP LOCKED
  LIMIT $1)
RETURNING id, payload`,
      values: [limit],
    };
  }
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

/** Marks a batch of finished jobs done (on Conveyor's table: COMPLETED, with the finish time its retention reads). */
export function floorComplete(t: FloorTables, ids: string[]): FloorStatement {
  if (t.table === 'conveyor') {
    return {
      name: 'floor_complete_conveyor_table',
      text: `UPDATE ${t.jobs} SET status = 'COMPLETED', finished_at = now() WHERE id = ANY($1::uuid[])`,
      values: [ids],
    };
  }
  return { name: 'floor_complete', text: `UPDATE ${t.jobs} SET status = 'done' WHERE id = ANY($1::bigint[])`, values: [ids] };
}

/** `rows` jobs in one statement: pending (due now) or finished a day ago. */
export function floorInsertRows(t: FloorTables, rows: number, state: 'pending' | 'finished'): FloorStatement {
  if (t.table === 'conveyor') {
    return {
      text: `
INSERT INTO ${t.jobs} (type, payload, status, run_at, finished_at)
SELECT '${FLOOR_JOB_TYPE}', '{}'::jsonb, $2, now() - interval '1 day', CASE WHEN $2 = 'COMPLETED' THEN now() - interval '1 day' END
FROM generate_series(1, $1::int)`,
      values: [rows, state === 'pending' ? 'PENDING' : 'COMPLETED'],
    };
  }
  return {
    text: `
INSERT INTO ${t.jobs} (payload, status, run_at)
SELECT '{}'::jsonb, $2, now() - interval '1 day' FROM generate_series(1, $1::int)`,
    values: [rows, state === 'pending' ? 'pending' : 'done'],
  };
}

/** How many rows there are, and how many are done. */
export function floorCounts(t: FloorTables): FloorStatement {
  return {
    text: `SELECT count(*)::int AS total, (count(*) FILTER (WHERE status = '${t.table === 'conveyor' ? 'COMPLETED' : 'done'}'))::int AS done FROM ${t.jobs}`,
    values: [],
  };
}

/**
 * Conveyor's schema in `t.schema`, from the snapshot of what its migrations leave (libs/conveyor/src/storage/schema.sql;
 * test/engine/schema-snapshot.e2e-spec.ts keeps the two in step), its insert trigger notifying the floor's channel:
 * the snapshot's `conveyor:{schema}` would be too long for a warm-up schema's name (Conveyor shortens such names with
 * a hash, channelFor). The snapshot writes the schema's name, quoted or not, as `{schema}`; bench schemas need no
 * quotes.
 */
function conveyorSchemaSql(t: FloorTables): string {
  const snapshot = readFileSync(join(__dirname, '../../libs/conveyor/src/storage/schema.sql'), 'utf8');
  const trigger = "conveyor_notify_inserted('conveyor:{schema}')";
  if (!snapshot.includes(trigger)) throw new Error(`schema.sql no longer creates its insert trigger as ${trigger}`);
  return snapshot.replace(trigger, `conveyor_notify_inserted('${t.channel.slice(1, -1)}')`).replaceAll('{schema}', t.schema.slice(1, -1));
}
