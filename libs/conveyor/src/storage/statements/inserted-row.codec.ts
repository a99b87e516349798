import { NewJobRow } from './new-job-row';

/**
 * The inserted-row encoding: what an insert statement sends back per inserted job (`INSERTED_COLUMNS`, only what
 * PostgreSQL decided), and how the full stored row is rebuilt from it and the request (`storedJobRow`). Parsing
 * every column back, the payload's jsonb among them, would cost a bulk insert more than the insert itself
 * (docs/performance.md, "Design notes from measurements").
 */
export const INSERTED_COLUMNS = 'id, seq, status, run_at, created_at';

/** What the insert sends back per inserted row: only what PostgreSQL decided. */
export interface InsertedJobColumns {
  id: string;
  seq: string;
  status: string;
  run_at: Date;
  created_at: Date;
}

/**
 * The full stored row of an inserted job: its request, what the insert returned (`INSERTED_COLUMNS`), and the
 * defaults of the columns neither sets (the table's DDL: storage/schema.sql). The payload is the submitted value itself, not
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
