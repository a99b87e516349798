import { JobStatus } from '../../job/job-status';
import { LONG_STATEMENT_DEADLINE_MS } from '../connections/sql-runner.interface';
import { JOB_COLUMNS, SqlTables, Statement } from './statement';

/** Filters of the job list; every one optional. */
export interface JobListFilter {
  status?: JobStatus;
  /** Matched whatever the case. */
  type?: string;
  queue?: string;
  /** Substring of the idempotency key. */
  key?: string;
  /** A JSON object the payload must contain (`@>`), as JSON text. */
  payload?: string;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created at or before. */
  createdTo?: Date;
  /** Keyset cursor: only rows with ids below this one. */
  beforeId?: string;
  limit: number;
}

/**
 * Newest first, keyset-paginated on the time-ordered id (stable while rows are inserted: new ids sort
 * above every page already read). Fetches limit+1 to know if more exist. The filters only narrow the rows, so the
 * cursor stays the last id of the page whatever they are. No index serves the payload or type filters: the scan
 * walks the primary key downwards and stops once a page is found, so a rare match reads far, within the long
 * statement deadline.
 */
export function jobList(t: SqlTables, f: JobListFilter): Statement {
  return {
    text: `
SELECT ${JOB_COLUMNS} FROM ${t.jobs}
WHERE ($1::text IS NULL OR status = $1)
  AND ($2::text IS NULL OR lower(type) = lower($2))
  AND ($3::text IS NULL OR queue = $3)
  AND ($4::text IS NULL OR idempotency_key LIKE '%' || $4 || '%')
  AND ($5::uuid IS NULL OR id < $5)
  AND ($7::jsonb IS NULL OR payload @> $7)
  AND ($8::timestamptz IS NULL OR created_at >= $8)
  AND ($9::timestamptz IS NULL OR created_at <= $9)
ORDER BY id DESC
LIMIT $6`,
    values: [
      f.status ?? null,
      f.type ?? null,
      f.queue ?? null,
      f.key ?? null,
      f.beforeId ?? null,
      f.limit + 1,
      f.payload ?? null,
      f.createdFrom ?? null,
      f.createdTo ?? null,
    ],
    deadlineMs: LONG_STATEMENT_DEADLINE_MS,
  };
}
