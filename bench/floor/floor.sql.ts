/** One parameterised statement, as pg takes it. */
export interface FloorStatement {
  name?: string;
  text: string;
  values: unknown[];
}

/** Escaped names of the floor's objects in one schema. */
export interface FloorTables {
  schema: string;
  jobs: string;
  channel: string;
}

/** Names for `schema` (bench schemas are lower-case letters, digits and underscores). */
export function floorTables(schema: string): FloorTables {
  return { schema: `"${schema}"`, jobs: `"${schema}".floor_jobs`, channel: `floor_${schema}`.slice(0, 63) };
}

/**
 * The whole floor schema: a plain table, a partial index on what is pending, and a per-statement
 * NOTIFY so a multi-row insert wakes workers once (as Conveyor's trigger does).
 */
export function floorCreateSql(t: FloorTables): string {
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
  PERFORM pg_notify('${t.channel}', '');
  RETURN NULL;
END
$fn$;
CREATE TRIGGER floor_jobs_notify AFTER INSERT ON ${t.jobs}
  FOR EACH STATEMENT EXECUTE FUNCTION ${t.schema}.floor_notify();`;
}

/** Multi-row `INSERT … VALUES ($1), ($2), …`: one bind parameter per job. */
export function floorInsertMany(t: FloorTables, payloads: unknown[]): FloorStatement {
  const rows = payloads.map((_, i) => `($${i + 1}::jsonb)`).join(', ');
  return { text: `INSERT INTO ${t.jobs} (payload) VALUES ${rows}`, values: payloads.map((p) => JSON.stringify(p)) };
}

/** Claims up to `limit` pending jobs, oldest first, skipping rows another worker is claiming. */
export function floorClaim(t: FloorTables, limit: number): FloorStatement {
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
  return { name: 'floor_complete', text: `UPDATE ${t.jobs} SET status = 'done' WHERE id = ANY($1::bigint[])`, values: [ids] };
}

/** `rows` jobs in one statement: pending (due now) or finished a day ago. */
export function floorInsertRows(t: FloorTables, rows: number, state: 'pending' | 'finished'): FloorStatement {
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
    text: `SELECT count(*)::int AS total, (count(*) FILTER (WHERE status = 'done'))::int AS done FROM ${t.jobs}`,
    values: [],
  };
}
