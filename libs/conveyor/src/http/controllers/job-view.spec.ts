import { Job } from '../../job/job';
import { JobStatus } from '../../job/job-status';
import { toJobView } from './job-view';

function runningJob(): Job {
  return {
    id: '01900000-0000-7000-8000-000000000001',
    seq: '7',
    queue: 'default',
    type: 'SEND_EMAIL',
    payload: { to: 'a@example.com' },
    status: JobStatus.RUNNING,
    priority: 0,
    runAt: new Date('2030-01-02T03:04:05.678Z'),
    attempts: 1,
    maxAttempts: 5,
    snoozes: 0,
    lastError: null,
    result: null,
    errors: [],
    idempotencyKey: null,
    uniqueKey: null,
    lockedBy: 'web-1',
    lockedUntil: new Date('2030-01-02T03:05:05.678Z'),
    leaseToken: '01900000-0000-7000-8000-0000000000aa',
    version: 2,
    createdAt: new Date('2030-01-02T03:04:00.001Z'),
    updatedAt: new Date('2030-01-02T03:04:05.700Z'),
    startedAt: new Date('2030-01-02T03:04:05.700Z'),
    finishedAt: null,
    progress: null,
  };
}

describe('toJobView', () => {
  it('answers every field of the job but its lease token', () => {
    const job = runningJob();
    const { leaseToken: _token, ...rest } = job;
    expect(toJobView(job)).toEqual(rest);
    expect(toJobView(job)).not.toHaveProperty('leaseToken');
  });

  it('gives the JSON text of the job itself, field for field in order, the lease token aside', () => {
    const { leaseToken: _token, ...rest } = runningJob();
    expect(JSON.stringify(toJobView(runningJob()))).toBe(JSON.stringify(rest));
  });
});
