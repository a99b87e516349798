import { buildTestJob } from '../../testing/test-job';
import { toJobView } from './job-view';

describe('toJobView', () => {
  it('answers every field of the job but its lease token', () => {
    const job = buildTestJob({ to: 'a@example.com' });
    const { leaseToken: _token, ...rest } = job;
    expect(toJobView(job)).toEqual(rest);
    expect(toJobView(job)).not.toHaveProperty('leaseToken');
  });

  it('gives the JSON text of the job itself, field for field in order, the lease token aside', () => {
    const job = buildTestJob({ to: 'a@example.com' }, { progress: { percent: 50, data: null } });
    const { leaseToken: _token, ...rest } = job;
    expect(JSON.stringify(toJobView(job))).toBe(JSON.stringify(rest));
  });
});
