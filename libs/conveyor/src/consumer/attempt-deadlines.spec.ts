import { AttemptDeadlines, Expiring } from './attempt-deadlines';

/** An entry that records when it expired and resolves `expired` then. */
function entry(inMs: number): Expiring & { expiredAt: number | null; expired: Promise<void> } {
  let resolve!: () => void;
  const expired = new Promise<void>((r) => (resolve = r));
  const e = {
    deadline: performance.now() + inMs,
    expiredAt: null as number | null,
    expired,
    expire() {
      e.expiredAt = performance.now();
      resolve();
    },
  };
  return e;
}

describe('AttemptDeadlines', () => {
  it('expires each entry at its own deadline, not before', async () => {
    const deadlines = new AttemptDeadlines();
    const late = entry(60);
    const early = entry(20);
    deadlines.add(late);
    deadlines.add(early); // earlier than the armed deadline: re-arms
    await early.expired;
    expect(late.expiredAt).toBeNull();
    expect(early.expiredAt!).toBeGreaterThanOrEqual(early.deadline - 1);
    await late.expired;
    expect(late.expiredAt!).toBeGreaterThanOrEqual(late.deadline - 1);
    expect(deadlines.size).toBe(0);
  });

  it('never expires an entry removed before its deadline, and keeps serving the others', async () => {
    const deadlines = new AttemptDeadlines();
    const finished = entry(10);
    const running = entry(40);
    deadlines.add(finished);
    deadlines.add(running);
    deadlines.remove(finished);
    await running.expired;
    expect(finished.expiredAt).toBeNull();
  });

  it('keeps nothing alive once every entry is removed (an idle worker), and holds the process while one runs', () => {
    const deadlines = new AttemptDeadlines();
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const a = entry(10_000);
    deadlines.add(a);
    expect(timers()).toBe(before + 1);
    deadlines.remove(a);
    expect(timers()).toBe(before);
    const b = entry(20_000); // later than the timer left behind: it is only held again
    deadlines.add(b);
    expect(timers()).toBe(before + 1);
    deadlines.remove(b);
    expect(timers()).toBe(before);
  });

  it('serves an entry added after the set emptied, when the timer left behind fires first', async () => {
    const deadlines = new AttemptDeadlines();
    const gone = entry(10);
    deadlines.add(gone);
    deadlines.remove(gone);
    const next = entry(40); // the timer is still set for `gone`: it fires, finds `next` not due, re-arms
    deadlines.add(next);
    await next.expired;
    expect(gone.expiredAt).toBeNull();
    expect(next.expiredAt!).toBeGreaterThanOrEqual(next.deadline - 1);
    expect(deadlines.size).toBe(0);
  });

  it('re-arms for an entry added while another expires', async () => {
    const deadlines = new AttemptDeadlines();
    const second = entry(30);
    const first = entry(5);
    const original = first.expire;
    first.expire = () => {
      original();
      deadlines.add(second);
    };
    deadlines.add(first);
    await second.expired;
    expect(second.expiredAt!).toBeGreaterThanOrEqual(second.deadline - 1);
  });

  it('arms its timer within what a Node timer can wait for a deadline further off, so the timer does not fire at once', () => {
    const setTimeoutSpy = jest.spyOn(global, 'setTimeout');
    const deadlines = new AttemptDeadlines();
    const far = entry(30 * 86_400_000);
    try {
      deadlines.add(far);
      const delay = setTimeoutSpy.mock.calls.at(-1)![1]!;
      expect(delay).toBe(2 ** 31 - 1);
    } finally {
      deadlines.remove(far);
      setTimeoutSpy.mockRestore();
    }
  });
});
