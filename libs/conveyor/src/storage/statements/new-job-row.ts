/** One row to insert; `delayMs` is applied with the database clock so instances never disagree. */
export interface NewJobRow {
  /** Made by the submitter (newJobId), so inserted rows are matched to requests by id. */
  id: string;
  queue: string;
  type: string;
  payload: unknown;
  /** The payload's JSON text, once made (`payloadJson`): inserts send it rather than encode the payload again. */
  payload_json?: string;
  priority: number;
  run_at: string | null;
  delay_ms: number | null;
  max_attempts: number;
  idempotency_key: string | null;
  idempotency_hash: string | null;
  unique_key: string | null;
}

/** The row's payload as JSON text (undefined for an undefined payload), made once per row. */
export function payloadJson(row: NewJobRow): string | undefined {
  if (row.payload_json === undefined && row.payload !== undefined) row.payload_json = JSON.stringify(row.payload);
  return row.payload_json;
}

/** A row with an idempotency or unique key: its insert may conflict, and take more than one statement. */
export function hasKeys(row: NewJobRow): boolean {
  return row.idempotency_key !== null || row.unique_key !== null;
}
