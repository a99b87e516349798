import { JobStatus } from '../../job/job-status';
import { LONG_STATEMENT_DEADLINE_MS } from '../connections/sql-runner.interface';
import { JobRow } from './job-row.mapper';
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
 * What the jobs of one page may hold, as stored in the database (`pg_column_size` of their payload, result, progress
 * and error history: compressed, and read without fetching the values themselves), before the page ends early. A page
 * of jobs with payloads or results of tens of MB took seconds to read and serialise, and past about 512 MB of JSON
 * could not be answered at all.
 */
export const LIST_PAGE_STORED_BYTES = 1024 * 1024;

/** A row of {@link jobList}: the job, and how many rows its page read before the size cut. */
export type ListedJobRow = JobRow & { page_rows: number };

/**
 * Newest first, keyset-paginated on the time-ordered id (stable while rows are inserted: new ids sort
 * above every page already read). Fetches limit+1 to know if more exist. The filters only narrow the rows, so the
 * cursor stays the last id of the page whatever they are. No index serves the payload or type filters: the scan
 * walks the primary key downwards and stops once a page is found, so a rare match reads far, within the long
 * statement deadline.
 *
 * A page ends early at the first job whose predecessors on it already hold {@link LIST_PAGE_STORED_BYTES} (so it holds
 * at least one job, and its last job may take it past the budget): `page_rows` then says more rows were read than
 * answered, and the cursor goes on from the last job answered.
 */
export function jobList(t: SqlTables, f: JobListFilter): Statement {
  return {
    text: `
SELECT ${JOB_COLUMNS}, page_rows FROM (
  SELECT ${JOB_COLUMNS},
    coalesce(sum(pg_column_size(payload) + coalesce(pg_column_size(result), 0) + coalesce(pg_column_size(progress), 0)
      + coalesce(pg_column_size(errors), 0)) OVER (ORDER BY id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
      AS held_before,
    (count(*) OVER ())::int AS page_rows
  FROM (
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
    LIMIT $6
  ) newest
) page
WHERE held_before < $10
ORDER BY id DESC`,
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
      LIST_PAGE_STORED_BYTES,
    ],
    deadlineMs: LONG_STATEMENT_DEADLINE_MS,
  };
}
