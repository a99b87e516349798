import { JobsService, JobStatus } from '@conveyor/core';
import { completedWithin } from './job-queries';

/**
 * Enqueues a TEST_RECORD job 700 ms ahead through `jobs` and checks that it ran when due: not before, and not a
 * poll interval later (the wake-up tests poll once a minute), so a due-time timer started it.
 */
export async function expectScheduledJobRunsWhenDue(jobs: JobsService): Promise<void> {
  const job = await jobs.enqueue('TEST_RECORD', {}, { delayMs: 700 });
  expect(job.status).toBe(JobStatus.SCHEDULED);
  const done = await completedWithin(jobs, job.id, 4_000);
  const waited = done.startedAt!.getTime() - done.createdAt.getTime();
  expect(waited).toBeGreaterThanOrEqual(690);
  expect(waited).toBeLessThan(2_500);
}
