import { Pool } from 'pg';
import { Job, JobsService, JobStatus } from '@conveyor/core';
import { waitFor } from './wait-for';

/** Row counts by status in a schema's jobs table. */
export async function countByStatus(sql: Pool, schema: string): Promise<Record<string, number>> {
  const { rows } = await sql.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM "${schema}".conveyor_jobs GROUP BY status`,
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Invocation statistics from the recording handler's table. */
export async function invocationStats(sql: Pool, schema: string): Promise<{ total: number; distinct: number; maxPerJob: number }> {
  const { rows } = await sql.query<{ total: number; distinct: number; max: number | null }>(
    `SELECT count(*)::int AS total, count(DISTINCT job_id)::int AS distinct,
            (SELECT max(c)::int FROM (SELECT count(*) AS c FROM "${schema}".test_invocations GROUP BY job_id) x) AS max
     FROM "${schema}".test_invocations`,
  );
  return { total: rows[0].total, distinct: rows[0].distinct, maxPerJob: rows[0].max ?? 0 };
}

/** The job once it is COMPLETED, read through `jobs`; fails when it is not within `timeoutMs`. */
export function completedWithin(jobs: JobsService, id: string, timeoutMs: number): Promise<Job> {
  return waitFor(
    async () => {
      const job = await jobs.get(id);
      return job.status === JobStatus.COMPLETED ? job : null;
    },
    { timeoutMs, message: `job ${id} to complete within ${timeoutMs} ms` },
  );
}
