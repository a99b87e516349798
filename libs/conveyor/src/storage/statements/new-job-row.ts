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

/** A row with an idempotency or unique key: its insert may conflict, and take more than one statement. */
export function hasKeys(row: NewJobRow): boolean {
  return row.idempotency_key !== null || row.unique_key !== null;
}
