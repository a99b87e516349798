import { SqlTables, Statement } from './statement';

/**
 * Stores what a running attempt reports of its progress, only while the job is RUNNING under that lease token
 * (the fencing of heartbeats and outcomes: a worker that lost its claim changes nothing). No row back means the
 * claim is gone. `updated_at` moves, so a live subscriber catching up (jobChangedSince) sees the report.
 *
 * With `leaseMs` the report also extends the lease to at least `leaseMs` from now, as a heartbeat would (an
 * in-process handler's report). The report holds the row locked until it commits, and the heartbeat round passes
 * locked rows by: a handler reporting often would have its row passed by in round after round, its lease never
 * extended, and lose its claim while it runs. Its own reports keep the lease instead. The lease is never shortened,
 * so an HTTP worker that leased its job for longer than the engine's lease (it passes null here) keeps that.
 */
export function jobSetProgress(t: SqlTables, id: string, token: string, progress: string, leaseMs: number | null = null): Statement {
  return {
    name: `job_progress_${t.key}`,
    text: `
UPDATE ${t.jobs} SET progress = $3::jsonb, updated_at = now(),
  locked_until = greatest(locked_until, now() + $4::bigint * interval '1 millisecond')
WHERE id = $1 AND lease_token = $2::uuid AND status = 'RUNNING'
RETURNING id`,
    values: [id, token, progress, leaseMs],
  };
}
