import { epochMicrosSql, SqlTables, Statement } from './statement';

/** What a live subscriber asks to catch up on: changes after a time, of matching jobs. */
export interface JobChangedSinceFilter {
  /** Microseconds since the epoch (the database's clock), exclusive. */
  sinceUs: string;
  queue?: string;
  type?: string;
  status?: string;
  /** One job only (a per-job stream). */
  id?: string;
  limit: number;
}

/**
 * Jobs changed after `sinceUs` that match the filter, oldest change first, as live items (the columns of
 * liveChangesNotify's items): what a live subscriber missed while it was away, or before the writers saw its
 * watch lease. There is no index on `updated_at` (it would cost every claim and completion an index entry), so this
 * reads the table; it runs once per subscription, not per event, and `limit` bounds its answer.
 */
export function jobChangedSince(t: SqlTables, f: JobChangedSinceFilter): Statement {
  return {
    text: `
SELECT id, status, queue, type, ${epochMicrosSql('updated_at')} AS at_us, progress
FROM ${t.jobs}
WHERE updated_at > 'epoch'::timestamptz + $1::bigint * interval '1 microsecond'
  AND ($2::text IS NULL OR queue = $2) AND ($3::text IS NULL OR lower(type) = lower($3)) AND ($4::text IS NULL OR status = $4)
  AND ($5::uuid IS NULL OR id = $5)
ORDER BY updated_at, id
LIMIT $6`,
    values: [f.sinceUs, f.queue ?? null, f.type ?? null, f.status ?? null, f.id ?? null, f.limit],
  };
}

/** A job's current state as a live item (the columns of jobChangedSince), for a per-job stream's first event. */
export function jobLiveState(t: SqlTables, id: string): Statement {
  return {
    text: `
SELECT id, status, queue, type, ${epochMicrosSql('updated_at')} AS at_us, progress
FROM ${t.jobs} WHERE id = $1`,
    values: [id],
  };
}
