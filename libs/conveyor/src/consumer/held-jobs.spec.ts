import { RegisteredHandler } from '../handlers/registered-handler.interface';
import { PlainJob } from '../job/plain-job';
import { HeldJob } from './held-job';
import { HeldJobs } from './held-jobs';

function held(id: string, token: string, leaseValidUntil: number): HeldJob {
  const job = Object.assign(new PlainJob(), { id, type: 'A', queue: 'default', leaseToken: token });
  const h = new HeldJob(job, { type: 'A' } as RegisteredHandler);
  h.leaseValidUntil = leaseValidUntil;
  return h;
}

describe('HeldJobs', () => {
  it('answers for a claim only while the job is held under its token', () => {
    const jobs = new HeldJobs();
    const first = held('j1', 'tok-1', 100);
    jobs.add(first);
    expect(jobs.holding({ id: 'j1', token: 'tok-1' })).toBe(first);
    const again = held('j1', 'tok-2', 200);
    jobs.add(again);
    expect(jobs.holding({ id: 'j1', token: 'tok-1' })).toBeUndefined();
    expect(jobs.holding({ id: 'j1', token: 'tok-2' })).toBe(again);
  });

  it('does not let go of a later attempt when an earlier one is released', () => {
    const jobs = new HeldJobs();
    const first = held('j1', 'tok-1', 100);
    jobs.add(first);
    const again = held('j1', 'tok-2', 200);
    jobs.add(again);
    jobs.release(first);
    expect(jobs.leases()).toEqual([{ id: 'j1', token: 'tok-2' }]);
    jobs.release(again);
    expect(jobs.size).toBe(0);
  });

  it('finds lapsed leases and the next lapse among attempts that still depend on their lease', () => {
    const jobs = new HeldJobs();
    const buffered = held('b', 't', 100);
    const running = held('r', 't', 300);
    running.state = 'running';
    const finishing = held('f', 't', 50);
    finishing.state = 'finishing';
    const lost = held('l', 't', 60);
    lost.lost = true;
    for (const h of [buffered, running, finishing, lost]) jobs.add(h);

    expect(jobs.lapsedBy(99)).toEqual([]);
    expect(jobs.lapsedBy(100)).toEqual([{ id: 'b', token: 't' }]);
    expect(jobs.nextLapse()).toBe(100);
    expect(jobs.running()).toEqual([running]);
    buffered.lost = true;
    expect(jobs.nextLapse()).toBe(300);
    running.lost = true;
    expect(jobs.nextLapse()).toBe(Infinity);
  });
});
