import { InsertedJobColumns } from './inserted-row.codec';
import { NewJobRow } from './new-job-row';

/**
 * The inserted-batch encoding: how a keyless batch insert answers with one row for the whole statement instead
 * of one per job (`answeredAsBatch` writes it, `unpackInsertedBatch` reads it). Every row is inserted (no ON
 * CONFLICT), `created_at` is the statement's `now()` for all of them, and so is `run_at` of every job due at once;
 * only `seq` differs from row to row, so the answer is `now`, the seqs joined, and the few rows that are not
 * (PENDING, due now). Why one row: docs/performance.md, "Design notes from measurements".
 */
export interface InsertedBatch {
  /** The statement's `now()`: every row's created_at, and run_at of every row not in `timed`. */
  now: Date;
  /** The rows' `seq`, comma-separated, in the order of their ids (null for none). */
  seqs: string | null;
  /** Rows that are not (PENDING, run_at = now()): [id, status, run_at in epoch ms]; null when there are none. */
  timed: [string, string, number][] | null;
}

/** Wraps an INSERT (without RETURNING) so that it answers with one `InsertedBatch` row. */
export function answeredAsBatch(insert: string): string {
  return `
WITH inserted AS (${insert}
RETURNING id, seq, status, run_at)
SELECT now() AS now, string_agg(seq::text, ',' ORDER BY id) AS seqs,
       json_agg(json_build_array(id, status, floor(extract(epoch FROM run_at) * 1000)::bigint))
         FILTER (WHERE run_at <> now() OR status <> 'PENDING') AS timed
FROM inserted`;
}

/**
 * The `InsertedJobColumns` of each row of a batch from its `InsertedBatch`, in request order. A row absent
 * from `timed` is, by that list's filter, PENDING and due at the statement's `now()`. Ids compare as
 * PostgreSQL orders uuids (lower-case hex), so the i-th smallest id holds the i-th seq.
 */
export function unpackInsertedBatch(rows: NewJobRow[], batch: InsertedBatch): InsertedJobColumns[] {
  const seqs = batch.seqs === null ? [] : batch.seqs.split(',');
  if (seqs.length !== rows.length) throw new Error(`A batch of ${rows.length} jobs came back with ${seqs.length} rows`);
  const seqOf = idsIncrease(rows) ? null : seqsById(rows, seqs);
  const timed = new Map<string, [string, string, number]>();
  for (const entry of batch.timed ?? []) timed.set(entry[0], entry);
  const now = batch.now.getTime();
  const columns = new Array<InsertedJobColumns>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const id = rows[i].id;
    const t = timed.size > 0 ? timed.get(id) : undefined;
    const seq = seqOf ? seqOf.get(id)! : seqs[i];
    columns[i] = { id, seq, status: t ? t[1] : 'PENDING', run_at: new Date(t ? t[2] : now), created_at: new Date(now) };
  }
  return columns;
}

/** Whether the rows' ids increase in request order (as newJobId makes them): then the i-th seq is the i-th row's. */
function idsIncrease(rows: NewJobRow[]): boolean {
  for (let i = 1; i < rows.length; i++) if (!(rows[i - 1].id < rows[i].id)) return false;
  return true;
}

function seqsById(rows: NewJobRow[], seqs: string[]): Map<string, string> {
  const byId = new Map<string, string>();
  const sorted = rows.map((r) => r.id).sort();
  for (let i = 0; i < sorted.length; i++) byId.set(sorted[i], seqs[i]);
  return byId;
}
