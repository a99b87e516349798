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
  // The jobs whose state allows it, changed at once; the others untouched.
  const many =
    <R>(allowed: JobStatus[], one: (id: string) => Promise<R>) =>
    async (ids: string[]) =>
      Promise.all(ids.filter((id) => allowed.includes(statuses[id])).map((id) => one(id)));
  const cancel = act([JobStatus.PENDING, JobStatus.RUNNING], JobStatus.CANCELLED);
  const retry = act([JobStatus.DEAD, JobStatus.CANCELLED], JobStatus.PENDING);
  const purge = act([JobStatus.COMPLETED, JobStatus.DEAD], null);
  return {
    cancel: jest.fn(cancel),
    cancelMany: jest.fn(many([JobStatus.PENDING, JobStatus.RUNNING], cancel)),
    retry: jest.fn(retry),
    retryMany: jest.fn(many([JobStatus.DEAD, JobStatus.CANCELLED], retry)),
    purge: jest.fn(async (id: string) => void (await purge(id))),
    purgeMany: jest.fn(many([JobStatus.COMPLETED, JobStatus.DEAD], async (id: string) => (await purge(id)).id)),
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
    expect(jobs.purgeMany).toHaveBeenCalledWith(['a']);
    expect(jobs.purge).not.toHaveBeenCalled();
  });

  it.each([
    ['cancel', { a: JobStatus.PENDING, b: JobStatus.COMPLETED }, 'CANCELLED'],
    ['retry', { a: JobStatus.DEAD, b: JobStatus.PENDING }, 'PENDING'],
    ['delete', { a: JobStatus.COMPLETED, b: JobStatus.PENDING }, null],
  ] as const)('%s: the jobs it may are taken at once, only the others settled one by one', async (action, statuses, status) => {
    const jobs = fakeJobs({ ...statuses });
    const result = await new BulkActionsService(jobs as unknown as JobsService).apply(action, ['b', 'x', 'a']);
    expect(result.results.map((r) => [r.id, r.ok, r.status, r.statusCode])).toEqual([
      ['b', false, statuses.b, 409],
      ['x', false, null, 404],
      ['a', true, status, undefined],
    ]);
    const one = { cancel: jobs.cancel, retry: jobs.retry, delete: jobs.purge }[action];
    expect(one.mock.calls).toEqual([['b'], ['x']]);
  });

  it('settles every job one by one when the retry of all at once took none (a unique key held)', async () => {
    const jobs = fakeJobs({ a: JobStatus.DEAD, b: JobStatus.CANCELLED });
    jobs.retryMany.mockResolvedValueOnce([]);
    const result = await new BulkActionsService(jobs as unknown as JobsService).apply('retry', ['a', 'b']);
    expect(result).toMatchObject({ succeeded: 2, failed: 0 });
    expect(jobs.retry.mock.calls).toEqual([['a'], ['b']]);
  });

  it('lets an unavailable database end the whole request', async () => {
    const jobs = fakeJobs({});
    jobs.retry.mockRejectedValueOnce(new DatabaseUnavailableError('down'));
    await expect(new BulkActionsService(jobs as unknown as JobsService).apply('retry', ['a'])).rejects.toThrow(DatabaseUnavailableError);
  });
});
