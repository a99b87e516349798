import { Pool } from 'pg';
import { waitFor } from '../support/wait-for';

/** A job's row as stored, with the columns handler tests check. */
export interface StoredJobRow {
  id: string;
  status: string;
  queue: string;
  attempts: number;
  snoozes: number;
  result: unknown;
  last_error: string | null;
  errors: Array<{ attempt: number; kind: string; error: string; retryAt?: string }>;
}

const FINISHED = ['COMPLETED', 'DEAD', 'CANCELLED'];

/** Polls the jobs table until job `id` is COMPLETED, DEAD or CANCELLED, and returns its row. */
export async function finishedJobRow(sql: Pool, jobsTable: string, id: string, timeoutMs = 15_000): Promise<StoredJobRow> {
  return waitFor(
    async () => {
      const { rows } = await sql.query<StoredJobRow>(
        `SELECT id, status, queue, attempts, snoozes, result, last_error, errors FROM ${jobsTable} WHERE id = $1`,
        [id],
      );
      return rows.length === 1 && FINISHED.includes(rows[0].status) && rows[0];
    },
    { timeoutMs, message: `job ${id} to finish` },
  );
}
