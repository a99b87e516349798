import { JOB_COLUMNS, SqlTables, Statement } from './statement';

/** One row to insert; `delayMs` is applied with the database clock so instances never disagree. */
export interface NewJobRow {
  queue: string;
  type: string;
  payload: unknown;
  priority: number;
  run_at: string | null;
  delay_ms: number | null;
  max_attempts: number;
  idempotency_key: string | null;
  idempotency_hash: string | null;
  unique_key: string | null;
}

/**
 * Inserts any number of jobs with one statement: the rows travel as a single jsonb parameter.
 *
 * A row that collides with a unique index is skipped, and the caller then reads the job that holds the key:
 * an existing idempotency key (`conveyor_jobs_idempotency_key`), or a (type, unique key) pair of a job still
 * waiting or running (`conveyor_jobs_unique_key`). PostgreSQL takes one conflict target at most, so to cover
 * both indexes the clause names none: every unique index arbitrates (the primary key too, on a fresh
 * random uuid, which never collides). Rows without keys never conflict, so the hot path stays one statement.
 */
export function jobInsertMany(t: SqlTables, rows: NewJobRow[]): Statement {
  return {
    name: `job_insert_${t.key}`,
    text: `
INSERT INTO ${t.jobs} (queue, type, payload, status, priority, run_at, max_attempts, idempotency_key, idempotency_hash,
  unique_key)
SELECT r.queue, r.type, coalesce(r.payload, 'null'::jsonb),
       CASE WHEN coalesce(r.run_at, now() + coalesce(r.delay_ms, 0) * interval '1 millisecond') > now()
            THEN 'SCHEDULED' ELSE 'PENDING' END,
       r.priority,
       coalesce(r.run_at, now() + coalesce(r.delay_ms, 0) * interval '1 millisecond'),
       r.max_attempts, r.idempotency_key, r.idempotency_hash, r.unique_key
FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (queue text, type text, payload jsonb, priority int,
     run_at timestamptz, delay_ms bigint, max_attempts int, idempotency_key text, idempotency_hash text,
     unique_key text))
     WITH ORDINALITY AS r(queue, type, payload, priority, run_at, delay_ms, max_attempts, idempotency_key,
     idempotency_hash, unique_key, ord)
ORDER BY r.ord
ON CONFLICT DO NOTHING
RETURNING ${JOB_COLUMNS}, idempotency_hash`,
    values: [JSON.stringify(rows)],
  };
}
