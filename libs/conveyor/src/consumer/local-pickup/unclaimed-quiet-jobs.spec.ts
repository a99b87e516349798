import { UnclaimedQuietJobs } from './unclaimed-quiet-jobs';

const jobs = (...ids: string[]) => ids.map((id) => ({ id }));

describe('UnclaimedQuietJobs', () => {
  it('forgets an insert once a later claim took all of its jobs', () => {
    const u = new UnclaimedQuietJobs();
    u.add(['a', 'b']);
    expect(u.count).toBe(2);
    expect(u.claimed(u.claimStarting(), jobs('x', 'a', 'b'))).toBe(false);
    expect(u.count).toBe(0);
    expect(u.clear()).toBe(false);
  });

  it('reports the jobs a claim that could see them left behind, once', () => {
    const u = new UnclaimedQuietJobs();
    u.add(['a', 'b']);
    const claim = u.claimStarting();
    expect(u.claimed(claim, jobs('a'))).toBe(true);
    expect(u.count).toBe(0);
    expect(u.claimed(u.claimStarting(), jobs())).toBe(false);
  });

  it('waits for the next claim when the insert committed while a claim was under way', () => {
    const u = new UnclaimedQuietJobs();
    const inFlight = u.claimStarting();
    u.add(['a']);
    // That claim's snapshot predates the insert: not taking the job says nothing.
    expect(u.claimed(inFlight, jobs())).toBe(false);
    expect(u.count).toBe(1);
    expect(u.claimed(u.claimStarting(), jobs())).toBe(true);
  });

  it('keeps each insert apart: one taken, one left', () => {
    const u = new UnclaimedQuietJobs();
    u.add(['a']);
    const claim = u.claimStarting();
    u.add(['b']);
    expect(u.claimed(claim, jobs('a'))).toBe(false);
    expect(u.count).toBe(1);
    expect(u.clear()).toBe(true);
    expect(u.count).toBe(0);
  });
});
