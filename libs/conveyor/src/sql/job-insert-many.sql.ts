import { SqlTables, Statement } from './statement';

/** One row to insert; `delayMs` is applied with the database clock so instances never disagree. */
export interface NewJobRow {
  /** Made by the submitter (newJobId), so inserted rows are matched to requests by id. */
  id: string;
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

/** What the insert sends back per inserted row: only what PostgreSQL decided. */
export interface InsertedJobColumns {
  id: string;
  seq: string;
  status: string;
  run_at: Date;
  created_at: Date;
}

/** A row with an idempotency or unique key: its insert may conflict, and take more than one statement. */
export function hasKeys(row: NewJobRow): boolean {
  return row.idempotency_key !== null || row.unique_key !== null;
}

/**
 * Inserts any number of jobs with one statement: the rows travel as a single jsonb parameter.
 *
 * It returns only the columns PostgreSQL fills in (`InsertedJobColumns`); `storedJobRow` completes each row
 * from its request and the column defaults. Sending every column back cost a bulk insert more than the
 * insert itself on the Node side (parsing 25 columns per row, the payload's jsonb among them).
 *
 * A row that collides with a unique index is skipped, and the caller then reads the job that holds the key:
 * an existing idempotency key (`conveyor_jobs_idempotency_key`), or a (type, unique key) pair of a job still
 * waiting or running (`conveyor_jobs_unique_key`). PostgreSQL takes one conflict target at most, so to cover
 * both indexes the clause names none: every unique index arbitrates. Only a statement carrying a key needs
 * the clause at all; without one, each row would still pay for a speculative insertion into every unique
 * index, so rows without keys (the hot path) are inserted by a statement without it.
 */
export function jobInsertMany(t: SqlTables, rows: NewJobRow[]): Statement {
  const keyed = rows.some(hasKeys);
  const conflict = keyed ? '\nON CONFLICT DO NOTHING' : '';
  // One row (every POST /jobs) binds its fields directly: no jsonb document to parse, no ordering to keep.
  if (rows.length === 1) {
    const r = rows[0];
    return {
      name: `job_insert_one_${keyed ? 'keyed' : 'plain'}_${t.key}`,
      text: `${insertSelect(t)}
FROM (VALUES ($1::uuid, $2::text, $3::text, $4::jsonb, $5::int, $6::timestamptz, $7::bigint, $8::int, $9::text, $10::text,
     $11::text)) AS r(i, q, t, p, pr, ra, d, ma, ik, ih, uk)${conflict}
RETURNING id, seq, status, run_at, created_at`,
      values: [r.id, r.queue, r.type, JSON.stringify(r.payload) ?? null, r.priority, r.run_at, r.delay_ms, r.max_attempts,
        r.idempotency_key, r.idempotency_hash, r.unique_key],
    };
  }
  return {
    name: `job_insert_${keyed ? 'keyed' : 'plain'}_${t.key}`,
    text: `${insertSelect(t)}
FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (i uuid, q text, t text, p jsonb, pr int, ra timestamptz, d bigint,
     ma int, ik text, ih text, uk text))
     WITH ORDINALITY AS r(i, q, t, p, pr, ra, d, ma, ik, ih, uk, ord)
ORDER BY r.ord${conflict}
RETURNING id, seq, status, run_at, created_at`,
    values: [`[${rows.map(rowJson).join(',')}]`],
  };
}

/** The INSERT and its select list over rows `r` (i id, q queue, t type, p payload, pr priority, ra run_at, …). */
function insertSelect(t: SqlTables): string {
  return `
INSERT INTO ${t.jobs} (id, queue, type, payload, status, priority, run_at, max_attempts, idempotency_key, idempotency_hash,
  unique_key)
SELECT r.i, r.q, r.t, coalesce(r.p, 'null'::jsonb),
       CASE WHEN coalesce(r.ra, now() + coalesce(r.d, 0) * interval '1 millisecond') > now()
            THEN 'SCHEDULED' ELSE 'PENDING' END,
       r.pr,
       coalesce(r.ra, now() + coalesce(r.d, 0) * interval '1 millisecond'),
       r.ma, r.ik, r.ih, r.uk`;
}

/**
 * One row of the insert's parameter. Short keys, and null fields left out (jsonb_to_recordset reads a
 * missing key as null): a job without options travels as ~100 bytes instead of ~230, which PostgreSQL
 * parses and Node writes to the socket. JSON.stringify is still what encodes every value.
 */
function rowJson(r: NewJobRow): string {
  let json = `{"i":"${r.id}","q":${JSON.stringify(r.queue)},"t":${JSON.stringify(r.type)},"p":${JSON.stringify(r.payload) ?? 'null'},"pr":${r.priority},"ma":${r.max_attempts}`;
  if (r.run_at !== null) json += `,"ra":${JSON.stringify(r.run_at)}`;
  if (r.delay_ms !== null) json += `,"d":${r.delay_ms}`;
  if (r.idempotency_key !== null) json += `,"ik":${JSON.stringify(r.idempotency_key)},"ih":${JSON.stringify(r.idempotency_hash)}`;
  if (r.unique_key !== null) json += `,"uk":${JSON.stringify(r.unique_key)}`;
  return `${json}}`;
}

/**
 * The full stored row of an inserted job: its request, what the insert returned, and the defaults of the
 * columns neither sets (the table's DDL in migration 0001). The payload is the submitted value itself, not
 * a copy read back from jsonb (which would only differ in key order, and in values JSON has no form for).
 */
export function storedJobRow(row: NewJobRow, inserted: InsertedJobColumns): Record<string, unknown> {
  return {
    id: inserted.id,
    seq: inserted.seq,
    queue: row.queue,
    type: row.type,
    payload: row.payload === undefined ? null : row.payload,
    status: inserted.status,
    priority: row.priority,
    run_at: inserted.run_at,
    attempts: 0,
    max_attempts: row.max_attempts,
    snoozes: 0,
    last_error: null,
    result: null,
    errors: [],
    idempotency_key: row.idempotency_key,
    idempotency_hash: row.idempotency_hash,
    unique_key: row.unique_key,
    locked_by: null,
    locked_until: null,
    lease_token: null,
    version: 1,
    created_at: inserted.created_at,
    updated_at: inserted.created_at,
    started_at: null,
    finished_at: null,
  };
}
