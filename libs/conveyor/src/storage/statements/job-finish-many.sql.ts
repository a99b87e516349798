import { isPlainCompletion, jobCompleteMany } from './job-complete-many.sql';
import { answeredOnce } from './finish-answer.codec';
import { FinishRow } from './finish-row';
import { lockedInIdOrder } from './locked-in-id-order';
import { jsonOrNull, plainArray, sparseArray, uuidArray } from './sql-arrays';
import { SqlTables, Statement } from './statement';

/**
 * The latest run_at an outcome sets: a delay counted on Node's clock and added to the database's `now()` may reach past
 * the calendar's last instant (a retry "until 9999-12-31T23:59:59.999Z" a few ms later), and a run_at in year 10000
 * is one that a Date and most clients cannot read back.
 */
const LAST_RUN_AT_SQL = `timestamptz '9999-12-31 23:59:59.999+00'`;

/**
 * Writes many outcomes (completed, retrying, dead, cancelled, handed back) with one statement.
 * Only rows still RUNNING under the same lease token change, so a worker that lost its claim
 * (lease expired and the job was rescued or re-claimed) cannot overwrite the newer attempt.
 * Answers with one `FinishAnswer` row: which outcomes were written; the rest were stale.
 *
 * The guard is the lease token alone: a token is set by the claim and cleared by every statement that
 * takes a job out of RUNNING (this one, the lease rescue), so `lease_token = token` implies RUNNING
 * under that claim. `status = 'RUNNING'` is not spelled out: it lets the planner reach the rows through the
 * partial lease index, whose entries for finished jobs stay until vacuum, so the write would grow with the jobs
 * finished since the last vacuum; `id = ANY(…)` gives it the primary key, a lookup per outcome however big the
 * table (docs/performance.md, "Design notes from measurements").
 * The rows are locked in id order before any changes (`lockedInIdOrder`), so this write cannot deadlock with
 * another outcome write or an operator's bulk action over the same jobs, whatever plan each of them gets.
 * The outcomes travel as parallel arrays through `unnest`, whose rows the planner counts right (a jsonb record
 * set can be re-scanned once per updated row). Arrays are built here (see sql-arrays): ids and tokens in binary, statuses
 * as a literal, and a column that is null in every row (the result, error and history of plain completions)
 * as an empty array, which `unnest` pads with nulls.
 *
 * A batch of plain completions (the common case) goes out as `jobCompleteMany` instead: same guard, lock
 * order and effect, fewer inputs and expressions.
 */
export function jobFinishMany(t: SqlTables, rows: FinishRow[]): Statement {
  if (rows.every(isPlainCompletion)) return jobCompleteMany(t, rows);
  const delay = (r: FinishRow) => (r.delay_ms === undefined || r.delay_ms === null ? null : Math.round(r.delay_ms));
  return {
    name: `job_finish_${t.key}`,
    text: answeredOnce(`
WITH ${lockedInIdOrder(t.jobs, '$1::uuid[]')}
UPDATE ${t.jobs} j SET
  status = o.status,
  result = CASE WHEN o.status = 'COMPLETED' THEN o.result ELSE j.result END,
  last_error = coalesce(o.error, j.last_error),
  errors = CASE WHEN o.entry IS NULL THEN j.errors ELSE j.errors || jsonb_build_array(o.entry) END,
  run_at = CASE WHEN o.delay_ms IS NULL THEN j.run_at
    ELSE least(now() + o.delay_ms * interval '1 millisecond', ${LAST_RUN_AT_SQL}) END,
  attempts = j.attempts - coalesce(o.refund, 0),
  snoozes = j.snoozes + coalesce(o.snoozed, 0),
  locked_by = NULL,
  locked_until = NULL,
  lease_token = NULL,
  started_at = CASE WHEN o.status IN ('COMPLETED','DEAD','CANCELLED') THEN j.started_at ELSE NULL END,
  finished_at = CASE WHEN o.status IN ('COMPLETED','DEAD','CANCELLED') THEN now() ELSE NULL END,
  updated_at = now(),
  version = j.version + 1
FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[], $5::text[], $6::jsonb[], $7::bigint[], $8::int[], $9::int[])
  WITH ORDINALITY AS o(id, token, status, result, error, entry, delay_ms, refund, snoozed, n)
WHERE j.id = ANY(ARRAY(SELECT id FROM locked)) AND j.id = o.id AND j.lease_token = o.token`),
    values: [
      uuidArray(rows.map((r) => r.id)),
      uuidArray(rows.map((r) => r.token)),
      plainArray(rows.map((r) => r.status)),
      sparseArray(rows.map((r) => jsonOrNull(r.result))),
      sparseArray(rows.map((r) => r.error ?? null)),
      sparseArray(rows.map((r) => jsonOrNull(r.entry))),
      sparseArray(rows.map(delay)),
      sparseArray(rows.map((r) => r.refund || null)),
      sparseArray(rows.map((r) => r.snoozed || null)),
    ],
  };
}
