import { JobStatus } from '../../job/job-status';
import { answeredOnce } from './finish-answer.codec';
import { FinishRow } from './finish-row';
import { lockedInIdOrder } from './locked-in-id-order';
import { jsonOrNull, sparseArray, uuidArray } from './sql-arrays';
import { SqlTables, Statement } from './statement';

/** A completion with nothing else to record: no error, no history entry, no new run time, nothing refunded. */
export function isPlainCompletion(r: FinishRow): boolean {
  return r.status === JobStatus.COMPLETED && !r.error && !r.entry && (r.delay_ms ?? null) === null && !r.refund && !r.snoozed;
}

/**
 * Writes a batch of plain completions (see `isPlainCompletion`): what `jobFinishMany` does for them, with the
 * same fencing (only rows still RUNNING under the same lease token change), lock order (`lockedInIdOrder`) and
 * answer (`FinishAnswer`), but three inputs instead of nine and no per-row CASE. Nearly every batch a draining
 * worker writes is one of these (what that saves: docs/performance.md, "Design notes from measurements").
 */
export function jobCompleteMany(t: SqlTables, rows: FinishRow[]): Statement {
  return {
    name: `job_complete_${t.key}`,
    text: answeredOnce(`
WITH ${lockedInIdOrder(t.jobs, '$1::uuid[]')}
UPDATE ${t.jobs} j SET
  status = 'COMPLETED',
  result = o.result,
  locked_by = NULL,
  locked_until = NULL,
  lease_token = NULL,
  finished_at = now(),
  updated_at = now(),
  version = j.version + 1
FROM unnest($1::uuid[], $2::uuid[], $3::jsonb[]) WITH ORDINALITY AS o(id, token, result, n)
WHERE j.id = ANY(ARRAY(SELECT id FROM locked)) AND j.id = o.id AND j.lease_token = o.token`),
    values: [uuidArray(rows.map((r) => r.id)), uuidArray(rows.map((r) => r.token)), sparseArray(rows.map((r) => jsonOrNull(r.result)))],
  };
}
