import { SqlTables, Statement } from './statement';

/**
 * Stores what a running attempt reports of its progress, only while the job is RUNNING under that lease token
 * (the fencing of heartbeats and outcomes: a worker that lost its claim changes nothing). No row back means the
 * claim is gone. `updated_at` moves, so a live subscriber catching up (jobChangedSince) sees the report.
 */
export function jobSetProgress(t: SqlTables, id: string, token: string, progress: string): Statement {
  return {
    name: `job_progress_${t.key}`,
    text: `
UPDATE ${t.jobs} SET progress = $3::jsonb, updated_at = now()
WHERE id = $1 AND lease_token = $2::uuid AND status = 'RUNNING'
RETURNING id`,
    values: [id, token, progress],
  };
}
