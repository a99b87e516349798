import { QUIET_CONDITION } from './quiet-insert';
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
 * Inserts any number of jobs with one statement: the rows travel as a single JSON document (`FROM_DOCUMENT`; one
 * row binds its fields directly). Used for a single row and for rows with keys; keyless batches take
 * `jobInsertBatch`, which answers with one row.
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
export function jobInsertMany(t: SqlTables, rows: NewJobRow[], quiet = false): Statement {
  const keyed = rows.some(hasKeys);
  const conflict = keyed ? '\nON CONFLICT DO NOTHING' : '';
  const variant = `${keyed ? 'keyed' : 'plain'}${quiet ? '_quiet' : ''}_${t.key}`;
  // One row (every POST /jobs) binds its fields directly: no JSON document to parse, no ordering to keep.
  if (rows.length === 1) {
    const r = rows[0];
    return {
      name: `job_insert_one_${variant}`,
      text: `${insertSelect(t)}
FROM (VALUES ($1::uuid, $2::text, $3::text, $4::jsonb, $5::int, $6::timestamptz, $7::bigint, $8::int, $9::text, $10::text,
     $11::text)) AS r(i, q, t, p, pr, ra, d, ma, ik, ih, uk)${quietly(quiet)}${conflict}
RETURNING id, seq, status, run_at, created_at`,
      values: [r.id, r.queue, r.type, JSON.stringify(r.payload) ?? null, r.priority, r.run_at, r.delay_ms, r.max_attempts,
        r.idempotency_key, r.idempotency_hash, r.unique_key],
    };
  }
  return {
    name: `job_insert_${variant}`,
    text: `${insertSelect(t)}
${FROM_DOCUMENT}${quietly(quiet)}
${IN_REQUEST_ORDER}${conflict}
RETURNING id, seq, status, run_at, created_at`,
    values: [rowsDocument(rows)],
  };
}

/**
 * What a keyless batch insert sends back: one row for the whole statement instead of one per job. Every row
 * is inserted (no ON CONFLICT), `created_at` is the statement's `now()` for all of them, and so is `run_at` of
 * every job due at once; only `seq` differs from row to row. Parsing a thousand returned rows of five columns
 * took ~1 ms of Node's CPU per 1,000 jobs, a sixth of what a bulk enqueue costs Node; this one row ~0.15 ms.
 */
export interface InsertedBatch {
  /** The statement's `now()`: every row's created_at, and run_at of every row not in `timed`. */
  now: Date;
  /** The rows' `seq`, comma-separated, in the order of their ids (null for none). */
  seqs: string | null;
  /** Rows that are not (PENDING, run_at = now()): [id, status, run_at in epoch ms]; null when there are none. */
  timed: [string, string, number][] | null;
}

/**
 * Inserts a batch of rows without keys with one statement, answering with one `InsertedBatch` row (read it
 * with `unpackInsertedBatch`). Rows are inserted in request order, so `seq` numbers them in that order.
 */
export function jobInsertBatch(t: SqlTables, rows: NewJobRow[], quiet = false): Statement {
  return {
    name: `job_insert_batch${quiet ? '_quiet' : ''}_${t.key}`,
    text: `
WITH inserted AS (${insertSelect(t)}
${FROM_DOCUMENT}${quietly(quiet)}
${IN_REQUEST_ORDER}
RETURNING id, seq, status, run_at)
SELECT now() AS now, string_agg(seq::text, ',' ORDER BY id) AS seqs,
       json_agg(json_build_array(id, status, floor(extract(epoch FROM run_at) * 1000)::bigint))
         FILTER (WHERE run_at <> now() OR status <> 'PENDING') AS timed
FROM inserted`,
    values: [rowsDocument(rows)],
  };
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

/**
 * The rows of a multi-row insert: its one parameter, a JSON array of `rowJson` objects, read in request order.
 * `json_to_recordset` over `json` rather than `jsonb_to_recordset` over `jsonb`: it reads the text record by
 * record instead of first building the whole document as jsonb (~3% less PostgreSQL CPU per 1,000-row insert,
 * three alternating runs of 40 statements); each payload still becomes jsonb, with jsonb's rules.
 */
const FROM_DOCUMENT = `FROM ROWS FROM (json_to_recordset($1::json) AS (i uuid, q text, t text, p jsonb, pr int, ra timestamptz, d bigint,
     ma int, ik text, ih text, uk text))
     WITH ORDINALITY AS r(i, q, t, p, pr, ra, d, ma, ik, ih, uk, ord)`;
const IN_REQUEST_ORDER = 'ORDER BY r.ord';

/** The WHERE clause of a quiet insert (its trigger sends no NOTIFY: sql/quiet-insert.ts), or nothing. */
function quietly(quiet: boolean): string {
  return quiet ? `\nWHERE ${QUIET_CONDITION}` : '';
}

function rowsDocument(rows: NewJobRow[]): string {
  // Appending makes a rope that is flattened once when sent; map + join built an array of strings first.
  let doc = '[';
  for (let i = 0; i < rows.length; i++) doc += i === 0 ? rowJson(rows[i]) : `,${rowJson(rows[i])}`;
  return `${doc}]`;
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
 * One row of the insert's parameter. Short keys, and null fields left out (json_to_recordset reads a
 * missing key as null): a job without options travels as ~100 bytes instead of ~230, which PostgreSQL
 * parses and Node writes to the socket. JSON.stringify is still what encodes every value.
 */
function rowJson(r: NewJobRow): string {
  let json = `{"i":"${r.id}","q":${quoted(r.queue)},"t":${quoted(r.type)},"p":${JSON.stringify(r.payload) ?? 'null'},"pr":${r.priority},"ma":${r.max_attempts}`;
  if (r.run_at !== null) json += `,"ra":${JSON.stringify(r.run_at)}`;
  if (r.delay_ms !== null) json += `,"d":${r.delay_ms}`;
  if (r.idempotency_key !== null) json += `,"ik":${JSON.stringify(r.idempotency_key)},"ih":${JSON.stringify(r.idempotency_hash)}`;
  if (r.unique_key !== null) json += `,"uk":${JSON.stringify(r.unique_key)}`;
  return `${json}}`;
}

/**
 * `JSON.stringify` of a string, remembering the last few: a batch's rows nearly always share their queue and
 * type, and encoding the same two strings again for each of a thousand rows was a measurable part of building
 * the document.
 */
function quoted(text: string): string {
  let json = QUOTED.get(text);
  if (json === undefined) {
    if (QUOTED.size >= 64) QUOTED.clear();
    json = JSON.stringify(text);
    QUOTED.set(text, json);
  }
  return json;
}

const QUOTED = new Map<string, string>();

/**
 * The full stored row of an inserted job: its request, what the insert returned, and the defaults of the
 * columns neither sets (the table's DDL: storage/schema.sql). The payload is the submitted value itself, not
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
