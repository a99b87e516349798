import { answeredAsBatch } from './inserted-batch.codec';
import { INSERTED_COLUMNS } from './inserted-row.codec';
import { hasKeys, NewJobRow, payloadJson } from './new-job-row';
import { QUIET_CONDITION } from './quiet-insert';
import { SqlTables, Statement } from './statement';

/**
 * Inserts any number of jobs with one statement: the rows travel as a single JSON document (`FROM_DOCUMENT`; one
 * row binds its fields directly). Used for a single row and for rows with keys; keyless batches take
 * `jobInsertBatch`, which answers with one row.
 *
 * It returns only the columns PostgreSQL fills in (inserted-row.codec.ts); `storedJobRow` completes each row
 * from its request and the column defaults.
 *
 * A row that collides with a unique index is skipped, and the caller then reads the job that holds the key:
 * an existing idempotency key (`conveyor_jobs_idempotency_key`), or a (type, unique key) pair of a job still
 * waiting or running (`conveyor_jobs_unique_key`). PostgreSQL takes one conflict target at most, so to cover
 * both indexes the clause names none: every unique index arbitrates. Only a statement carrying a key needs
 * the clause at all; without one, each row would still pay for a speculative insertion into every unique
 * index, so rows without keys (the hot path) are inserted by a statement without it.
 */
export function jobInsertMany(t: SqlTables, rows: NewJobRow[], quiet = false, delaysFromStatement = false): Statement {
  const keyed = rows.some(hasKeys);
  const conflict = keyed ? '\nON CONFLICT DO NOTHING' : '';
  const variant = `${keyed ? 'keyed' : 'plain'}${quiet ? '_quiet' : ''}${delaysFromStatement ? '_late' : ''}_${t.key}`;
  // One row (every POST /jobs) binds its fields directly: no JSON document to parse, no ordering to keep.
  if (rows.length === 1) {
    const r = rows[0];
    return {
      name: `job_insert_one_${variant}`,
      text: `${insertSelect(t, ROW_SOURCES, delaysFromStatement)}
FROM (VALUES ($1::uuid, $2::text, $3::text, $4::jsonb, $5::int, $6::timestamptz, $7::bigint, $8::int, $9::text, $10::text,
     $11::text)) AS r(i, q, t, p, pr, ra, d, ma, ik, ih, uk)${quietly(quiet)}${conflict}
RETURNING ${INSERTED_COLUMNS}`,
      values: [
        r.id,
        r.queue,
        r.type,
        payloadJson(r) ?? null,
        r.priority,
        r.run_at,
        r.delay_ms,
        r.max_attempts,
        r.idempotency_key,
        r.idempotency_hash,
        r.unique_key,
      ],
    };
  }
  return {
    name: `job_insert_${variant}`,
    text: `${insertSelect(t, ROW_SOURCES, delaysFromStatement)}
${FROM_DOCUMENT}${quietly(quiet)}
${IN_REQUEST_ORDER}${conflict}
RETURNING ${INSERTED_COLUMNS}`,
    values: [rowsDocument(rows)],
  };
}

/**
 * Inserts a batch of rows without keys with one statement, answering with one row for the whole batch
 * (inserted-batch.codec.ts). Rows are inserted in request order, so `seq` numbers them in that order. A uniform
 * batch, whose rows have every field in common but id and payload (`commonFields`), sends those fields once.
 */
export function jobInsertBatch(t: SqlTables, rows: NewJobRow[], quiet = false, delaysFromStatement = false): Statement {
  const common = commonFields(rows);
  const variant = `${quiet ? '_quiet' : ''}${delaysFromStatement ? '_late' : ''}_${t.key}`;
  if (common) {
    return {
      name: `job_insert_batch_uniform${variant}`,
      text: answeredAsBatch(`${insertSelect(t, COMMON_SOURCES, delaysFromStatement)}
${FROM_IDS_AND_PAYLOADS}${quietly(quiet)}
${IN_REQUEST_ORDER}`),
      values: [
        idsAndPayloadsDocument(rows),
        common.queue,
        common.type,
        common.priority,
        common.run_at,
        common.delay_ms,
        common.max_attempts,
      ],
    };
  }
  return {
    name: `job_insert_batch${variant}`,
    text: answeredAsBatch(`${insertSelect(t, ROW_SOURCES, delaysFromStatement)}
${FROM_DOCUMENT}${quietly(quiet)}
${IN_REQUEST_ORDER}`),
    values: [rowsDocument(rows)],
  };
}

/** The fields the rows of a keyless batch may have in common: all of them but id and payload. */
export type CommonFields = Pick<NewJobRow, 'queue' | 'type' | 'priority' | 'run_at' | 'delay_ms' | 'max_attempts'>;

/**
 * The fields every row of `rows` has in common, or null when one differs or a row has a key. A batch of one kind
 * of job (an `enqueueMany` of one type, a burst of the same submission) then sends two fields per row instead of up
 * to eleven: PostgreSQL reads each record of the document field by field, so each field left out saves it work on
 * every row (docs/performance.md, "Inserts").
 */
export function commonFields(rows: NewJobRow[]): CommonFields | null {
  const first = rows[0];
  if (!first) return null;
  for (const r of rows) {
    if (hasKeys(r)) return null;
    if (
      r.queue !== first.queue ||
      r.type !== first.type ||
      r.priority !== first.priority ||
      r.run_at !== first.run_at ||
      r.delay_ms !== first.delay_ms ||
      r.max_attempts !== first.max_attempts
    ) {
      return null;
    }
  }
  const { queue, type, priority, run_at, delay_ms, max_attempts } = first;
  return { queue, type, priority, run_at, delay_ms, max_attempts };
}

/**
 * The rows of a multi-row insert: its one parameter, a JSON array of `rowJson` objects, read in request order.
 * `json_to_recordset` over `json` rather than `jsonb_to_recordset` over `jsonb`: it reads the text record by
 * record instead of first building the whole document as jsonb; each payload still becomes jsonb, with jsonb's
 * rules.
 */
const FROM_DOCUMENT = `FROM ROWS FROM (json_to_recordset($1::json) AS (i uuid, q text, t text, p jsonb, pr int, ra timestamptz, d bigint,
     ma int, ik text, ih text, uk text))
     WITH ORDINALITY AS r(i, q, t, p, pr, ra, d, ma, ik, ih, uk, ord)`;
/** The rows of a uniform batch (`commonFields`): ids and payloads only, in request order. */
const FROM_IDS_AND_PAYLOADS = `FROM ROWS FROM (json_to_recordset($1::json) AS (i uuid, p jsonb)) WITH ORDINALITY AS r(i, p, ord)`;
const IN_REQUEST_ORDER = 'ORDER BY r.ord';

/** The WHERE clause of a quiet insert (its trigger sends no NOTIFY: quiet-insert.ts), or nothing. */
function quietly(quiet: boolean): string {
  return quiet ? `\nWHERE ${QUIET_CONDITION}` : '';
}

function rowsDocument(rows: NewJobRow[]): string {
  // Appending makes a rope that is flattened once when sent; map + join built an array of strings first.
  let doc = '[';
  for (let i = 0; i < rows.length; i++) doc += i === 0 ? rowJson(rows[i]) : `,${rowJson(rows[i])}`;
  return `${doc}]`;
}

function idsAndPayloadsDocument(rows: NewJobRow[]): string {
  let doc = '[';
  for (let i = 0; i < rows.length; i++) {
    doc += `${i === 0 ? '' : ','}{"i":"${rows[i].id}","p":${payloadJson(rows[i]) ?? 'null'}}`;
  }
  return `${doc}]`;
}

/** Where the insert's select list takes each field but id and payload from: the fields of a row `r`, by default. */
type FieldSources = Record<'q' | 't' | 'pr' | 'ra' | 'd' | 'ma' | 'ik' | 'ih' | 'uk', string>;

const ROW_SOURCES: FieldSources = { q: 'r.q', t: 'r.t', pr: 'r.pr', ra: 'r.ra', d: 'r.d', ma: 'r.ma', ik: 'r.ik', ih: 'r.ih', uk: 'r.uk' };

/** The common fields of `jobInsertBatch`'s uniform form, its parameters $2-$7; such a batch carries no keys. */
const COMMON_SOURCES: FieldSources = {
  q: '$2::text',
  t: '$3::text',
  pr: '$4::int',
  ra: '$5::timestamptz',
  d: '$6::bigint',
  ma: '$7::int',
  ik: 'NULL',
  ih: 'NULL',
  uk: 'NULL',
};

/**
 * The INSERT and its select list over rows `r` (i id, p payload; the other fields as `v` says). A delay counts from
 * `now()`, the start of the statement's transaction, which for a statement that commits on its own is the statement's
 * start too. `delaysFromStatement` (in a caller's transaction, open for who knows how long) counts it from the
 * statement instead (`statement_timestamp()`): from `now()`, a job enqueued with a delay shorter than the time the
 * transaction has been open would be due before it was enqueued. A job without a delay is still due at `now()`, which
 * the insert trigger compares with to announce it as ready rather than as scheduled.
 */
function insertSelect(t: SqlTables, v: FieldSources, delaysFromStatement: boolean): string {
  const runAt = delaysFromStatement
    ? `coalesce(${v.ra}, CASE WHEN ${v.d} > 0 THEN statement_timestamp() + ${v.d} * interval '1 millisecond' ELSE now() END)`
    : `coalesce(${v.ra}, now() + coalesce(${v.d}, 0) * interval '1 millisecond')`;
  return `
INSERT INTO ${t.jobs} (id, queue, type, payload, status, priority, run_at, max_attempts, idempotency_key, idempotency_hash,
  unique_key)
SELECT r.i, ${v.q}, ${v.t}, coalesce(r.p, 'null'::jsonb),
       CASE WHEN ${runAt} > now()
            THEN 'SCHEDULED' ELSE 'PENDING' END,
       ${v.pr},
       ${runAt},
       ${v.ma}, ${v.ik}, ${v.ih}, ${v.uk}`;
}

/**
 * One row of the insert's parameter. Short keys, and null fields left out (json_to_recordset reads a
 * missing key as null), so a job without options travels as less than half the bytes that PostgreSQL parses and
 * Node writes to the socket. JSON.stringify is still what encodes every value.
 */
function rowJson(r: NewJobRow): string {
  let json = `{"i":"${r.id}","q":${quoted(r.queue)},"t":${quoted(r.type)},"p":${payloadJson(r) ?? 'null'},"pr":${r.priority},"ma":${r.max_attempts}`;
  if (r.run_at !== null) json += `,"ra":${JSON.stringify(r.run_at)}`;
  if (r.delay_ms !== null) json += `,"d":${r.delay_ms}`;
  if (r.idempotency_key !== null) json += `,"ik":${JSON.stringify(r.idempotency_key)},"ih":${JSON.stringify(r.idempotency_hash)}`;
  if (r.unique_key !== null) json += `,"uk":${JSON.stringify(r.unique_key)}`;
  return `${json}}`;
}

/**
 * `JSON.stringify` of a string, remembering the last few: a batch's rows nearly always share their queue and
 * type, which need encoding once, not once per row.
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
