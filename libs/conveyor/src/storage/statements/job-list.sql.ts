import { JobStatus } from '../../job/job-status';
import { JOB_COLUMNS, SqlTables, Statement } from './statement';

/** Filters of the job list; every one optional. */
export interface JobListFilter {
  status?: JobStatus;
  type?: string;
  queue?: string;
  /** Substring of the idempotency key. */
  key?: string;
  /** Keyset cursor: only rows with ids below this one. */
  beforeId?: string;
  limit: number;
}

/**
 * Newest first, keyset-paginated on the time-ordered id (stable while rows are inserted: new ids sort
 * above every page already read). Fetches limit+1 to know if more exist.
 */
export function jobList(t: SqlTables, f: JobListFilter): Statement {
  return {
    text: `
SELECT ${JOB_COLUMNS} FROM ${t.jobs}
WHERE ($1::text IS NULL OR status = $1)
  AND ($2::text IS NULL OR type = $2)
  AND ($3::text IS NULL OR queue = $3)
  AND ($4::text IS NULL OR idempotency_key LIKE '%' || $4 || '%')
  AND ($5::uuid IS NULL OR id < $5)
ORDER BY id DESC
LIMIT $6`,
    values: [f.status ?? null, f.type ?? null, f.queue ?? null, f.key ?? null, f.beforeId ?? null, f.limit + 1],
  };
}
