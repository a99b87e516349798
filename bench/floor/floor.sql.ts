import type { FloorNames, FloorTableSql } from './floor-table-sql.interface';

/**
 * The floor's own table: four columns, a partial index on what is pending, and a per-statement NOTIFY so a multi-row
 * insert wakes workers once (as Conveyor's trigger does). Claims take the oldest first.
 */
export function floorTableSql(t: FloorNames): FloorTableSql {
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
