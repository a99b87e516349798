import { uuidArray } from './sql-arrays';
import { epochMicrosSql, SqlTables, Statement } from './statement';

/** A job change a writer announces: the job and the status its write left it in. */
export interface AnnouncedChange {
  id: string;
  /** The status the write set, or `DELETED`. */
  status: string;
  /** Needed only for a deleted job, whose row is gone; read from the row otherwise. */
  queue?: string;
  type?: string;
}

/**
 * Most bytes of items one notification carries. PostgreSQL refuses a payload of 8000 bytes or more; an item (a job's
 * id, status, queue, type, time and progress, whose data is capped at MAX_PROGRESS_DATA_BYTES) stays well under
 * 2000, and a chunk closes at the first item that takes it past this mark.
 */
export const LIVE_CHUNK_BYTES = 6000;

/**
 * Announces changed jobs whose writers do not know all of their items (those that do send the items themselves:
 * LivePublisher.announceItems) on the live channel: one `pg_notify` per chunk of at most about LIVE_CHUNK_BYTES, each a JSON
 * array of items `[id, status, queue, type, updated_at in µs since the epoch (text), progress]`. The status is the
 * one the write set, so every step is announced even when the next one has already happened; queue, type and time
 * are read from the row (the job's current ones), and so is the progress, but only while the row still has the
 * announced status, so that an item never pairs an earlier status with a later attempt's progress. A deleted job has
 * no row, so its item carries the queue and type the writer gave and the time of this statement.
 */
export function liveChangesNotify(t: SqlTables, channel: string, changes: AnnouncedChange[]): Statement {
  return {
    name: `live_notify_${t.key}`,
    text: `
SELECT pg_notify($1, '[' || string_agg(item, ',' ORDER BY n) || ']')
FROM (
  SELECT n, item, sum(octet_length(item) + 1) OVER (ORDER BY n) / $6 AS chunk
  FROM (
    SELECT c.n, json_build_array(c.id, c.status, coalesce(j.queue, c.queue), coalesce(j.type, c.type),
      ${epochMicrosSql('coalesce(j.updated_at, now())')},
      CASE WHEN j.status = c.status THEN j.progress END)::text AS item
    FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS c(id, status, queue, type, n)
    LEFT JOIN ${t.jobs} j ON j.id = c.id
  ) items
) chunked
GROUP BY chunk`,
    values: [
      channel,
      uuidArray(changes.map((c) => c.id)),
      changes.map((c) => c.status),
      changes.map((c) => c.queue ?? null),
      changes.map((c) => c.type ?? null),
      LIVE_CHUNK_BYTES,
    ],
  };
}
