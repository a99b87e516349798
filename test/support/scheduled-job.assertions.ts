import { JobsService, JobStatus } from '@conveyor/core';
import { completedWithin } from './job-queries';

/**
 * Enqueues one TEST_RECORD job per delay through `jobs`, in the order given, and checks that each ran when due: not
 * before, and not a poll interval later (the wake-up tests poll once a minute), so a due-time timer started it.
 */
export async function expectScheduledJobsRunWhenDue(jobs: JobsService, delaysMs: readonly number[] = [700]): Promise<void> {
  const submitted = [];
  for (const delayMs of delaysMs) {
    const job = await jobs.enqueue('TEST_RECORD', { delayMs }, { delayMs });
    expect(job.status).toBe(JobStatus.SCHEDULED);
    submitted.push({ id: job.id, delayMs });
  }
  await expectRunWhenDue(jobs, submitted);
}

/**
 * The same for the jobs of one `enqueueMany`, one insert statement: a TEST_RECORD job per delay (0 is due at once),
 * each run when due, though the statement's insert is one notification and one result.
 */
export async function expectBatchRunWhenDue(jobs: JobsService, delaysMs: readonly number[]): Promise<void> {
  const batch = await jobs.enqueueMany(delaysMs.map((delayMs) => ({ type: 'TEST_RECORD', payload: { delayMs }, delayMs })));
  await expectRunWhenDue(
    jobs,
    batch.map((job, i) => ({ id: job.id, delayMs: delaysMs[i] })),
  );
}

async function expectRunWhenDue(jobs: JobsService, submitted: readonly { id: string; delayMs: number }[]): Promise<void> {
  for (const { id, delayMs } of submitted) {
    const done = await completedWithin(jobs, id, delayMs + 3_300);
    const waited = done.startedAt!.getTime() - done.createdAt.getTime();
    expect(waited).toBeGreaterThanOrEqual(delayMs - 10);
    expect(waited).toBeLessThan(delayMs + 1_800);
  }
}
