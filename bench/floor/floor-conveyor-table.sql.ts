import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newJobId } from '@conveyor/core/job/job-id';
import { BENCH_JOB_TYPE } from '../shared/bench-queue.interface';
import type { FloorNames, FloorTableSql } from './floor-table-sql.interface';

/**
 * The floor's statements on Conveyor's jobs table, for the `floor-conveyor-table` reference: the same work as on the
 * floor's own table (floor.sql.ts), in that table's vocabulary, so that its gap to the floor is what the table costs.
 * The claim reaches the claimable rows through Conveyor's claim index, in its order, and marks them RUNNING; the
 * completion marks them COMPLETED with the finish time retention reads; an insert sends ids made as Conveyor makes
 * them (job-id.ts, rather than the column default, which Conveyor's inserts never run) and leaves every other column
 * but type and payload to its default.
 */
export function conveyorTableSql(t: FloorNames): FloorTableSql {
  return {
    create: () => conveyorTableCreateSql(t),

    // Multi-row `INSERT … VALUES ($1, $2), …`: an id and a payload per job.
    insertMany: (payloads) => ({
      text: `INSERT INTO ${t.jobs} (id, type, payload) VALUES ${payloads
        .map((_, i) => `($${2 * i + 1}::uuid, '${BENCH_JOB_TYPE}', $${2 * i + 2}::jsonb)`)
        .join(', ')}`,
      values: payloads.flatMap((p) => [newJobId(), JSON.stringify(p)]),
    }),

    claim: (limit) => ({
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
    }),

    complete: (ids) => ({
      name: 'floor_complete_conveyor_table',
      text: `UPDATE ${t.jobs} SET status = 'COMPLETED', finished_at = now() WHERE id = ANY($1::uuid[])`,
      values: [ids],
    }),

    // The growth cases, which insert rows this way, do not run the reference (caseRunsVariant).
    insertRows: () => {
      throw new Error('floor-conveyor-table inserts its jobs by enqueue only');
    },

    counts: () => ({
      text: `SELECT count(*)::int AS total, (count(*) FILTER (WHERE status = 'COMPLETED'))::int AS done FROM ${t.jobs}`,
      values: [],
    }),
  };
}

/**
 * Conveyor's schema in `t.schema`, from the snapshot of what its migrations leave (libs/conveyor/src/storage/schema.sql;
 * test/engine/schema-snapshot.e2e-spec.ts keeps the two in step), its insert trigger notifying the floor's channel:
 * the snapshot's `conveyor:{schema}` would be too long for a warm-up schema's name (Conveyor shortens such names with
 * a hash, channelFor). The snapshot writes the schema's name, quoted or not, as `{schema}`; bench schemas need no
 * quotes.
 */
function conveyorTableCreateSql(t: FloorNames): string {
  const snapshot = readFileSync(join(__dirname, '../../libs/conveyor/src/storage/schema.sql'), 'utf8');
  const trigger = "conveyor_notify_inserted('conveyor:{schema}')";
  if (!snapshot.includes(trigger)) throw new Error(`schema.sql no longer creates its insert trigger as ${trigger}`);
  return snapshot.replace(trigger, `conveyor_notify_inserted('${t.channel.slice(1, -1)}')`).replaceAll('{schema}', t.schema.slice(1, -1));
}
