import { JobNotFoundError, JobStateConflictError, DatabaseUnavailableError } from '../errors/job-request.errors';
import { Job } from '../job/job';
import { JobStatus } from '../job/job-status';
import { BulkActionsService } from './bulk-actions.service';
import { JobsService } from './jobs.service';

/** A JobsService whose job operations answer from a map of statuses. */
function fakeJobs(statuses: Record<string, JobStatus>) {
  const act = (allowed: JobStatus[], to: JobStatus | null) => async (id: string) => {
    const status = statuses[id];
    if (status === undefined) throw new JobNotFoundError(`Job ${id} does not exist.`);
    if (!allowed.includes(status)) throw new JobStateConflictError(`not from ${status}`, status);
    if (to === null) delete statuses[id];
    else statuses[id] = to;
    return { id, status: to } as Job;
  };
  const cancel = act([JobStatus.PENDING, JobStatus.RUNNING], JobStatus.CANCELLED);
  return {
    cancel: jest.fn(cancel),
    // The jobs whose state allows it, cancelled at once; the others untouched.
    cancelMany: jest.fn(async (ids: string[]) =>
      Promise.all(ids.filter((id) => statuses[id] === JobStatus.PENDING || statuses[id] === JobStatus.RUNNING).map((id) => cancel(id))),
    ),
    retry: jest.fn(act([JobStatus.DEAD, JobStatus.CANCELLED], JobStatus.PENDING)),
    purge: jest.fn(act([JobStatus.COMPLETED, JobStatus.DEAD], null)),
    get: jest.fn(async (id: string) => ({ id, status: statuses[id] }) as Job),
  };
}

describe('BulkActionsService', () => {
  it('applies the action job by job: refusals are reported and never stop the others', async () => {
    const jobs = fakeJobs({ a: JobStatus.PENDING, b: JobStatus.COMPLETED, c: JobStatus.RUNNING });
    const result = await new BulkActionsService(jobs as unknown as JobsService).apply('cancel', ['b', 'a', 'x', 'c']);
    expect(result).toEqual({
      action: 'cancel',
      succeeded: 2,
      failed: 2,
      results: [
        { id: 'b', ok: false, status: 'COMPLETED', statusCode: 409, message: 'not from COMPLETED' },
        { id: 'a', ok: true, status: 'CANCELLED' },
        { id: 'x', ok: false, status: null, statusCode: 404, message: 'Job x does not exist.' },
        { id: 'c', ok: true, status: 'CANCELLED' },
      ],
    });
  });

  it('acts once per id, whatever its case, and reports a deleted job with no status', async () => {
    const jobs = fakeJobs({ a: JobStatus.DEAD });
    const result = await new BulkActionsService(jobs as unknown as JobsService).apply('delete', ['a', 'A', 'a']);
    expect(result.results).toEqual([{ id: 'a', ok: true, status: null }]);
    expect(jobs.purge).toHaveBeenCalledTimes(1);
  });

  it('lets an unavailable database end the whole request', async () => {
    const jobs = fakeJobs({});
    jobs.retry.mockRejectedValueOnce(new DatabaseUnavailableError('down'));
    await expect(new BulkActionsService(jobs as unknown as JobsService).apply('retry', ['a'])).rejects.toThrow(DatabaseUnavailableError);
  });
});
