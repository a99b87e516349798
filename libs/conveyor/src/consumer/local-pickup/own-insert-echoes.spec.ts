import { OwnInsertEchoes } from './own-insert-echoes';

describe('OwnInsertEchoes', () => {
  const at = 1_764_000_000_123;
  let notices: OwnInsertEchoes;

  beforeEach(() => (notices = new OwnInsertEchoes()));

  it('wakes for an insert, and not for its NOTIFY after it', () => {
    expect(notices.insertCommitted(41, at, 0)).toBe(true);
    expect(notices.notified(41, at, 1)).toBe(false);
    expect(notices.unmatched).toBe(0);
  });

  it('wakes for a NOTIFY heard first, and not for its insert after it', () => {
    expect(notices.notified(41, at, 0)).toBe(true);
    expect(notices.insertCommitted(41, at, 1)).toBe(false);
    expect(notices.unmatched).toBe(0);
  });

  it('pairs the NOTIFY’s rounded millisecond with the insert’s truncated one, and nothing further apart', () => {
    expect(notices.insertCommitted(41, at, 0)).toBe(true);
    expect(notices.notified(41, at + 1, 0)).toBe(false);
    expect(notices.insertCommitted(41, at, 0)).toBe(true);
    expect(notices.notified(41, at - 1, 0)).toBe(true);
    expect(notices.notified(41, at + 2, 0)).toBe(true);
  });

  it('wakes for a NOTIFY from another backend, or for another insert', () => {
    notices.insertCommitted(41, at, 0);
    expect(notices.notified(42, at, 0)).toBe(true);
    expect(notices.notified(41, at + 5_000, 0)).toBe(true);
    // The insert's own NOTIFY is still recognised.
    expect(notices.notified(41, at, 0)).toBe(false);
  });

  it('pairs each insert once: two inserts with the same (pid, run_at) swallow two notifications, not three', () => {
    notices.insertCommitted(41, at, 0);
    notices.insertCommitted(41, at, 0);
    expect(notices.notified(41, at, 0)).toBe(false);
    expect(notices.notified(41, at, 0)).toBe(false);
    expect(notices.notified(41, at, 0)).toBe(true);
  });

  it('forgets a half whose partner has not come within the window', () => {
    notices.insertCommitted(41, at, 0);
    expect(notices.notified(41, at, 2_001)).toBe(true);
    notices.notified(43, at, 10_000);
    expect(notices.insertCommitted(43, at, 12_001)).toBe(true);
  });

  it('keeps at most 256 unmatched halves of each kind, dropping the oldest', () => {
    for (let i = 0; i < 300; i++) notices.insertCommitted(i, at, 0);
    expect(notices.unmatched).toBe(256);
    expect(notices.notified(0, at, 0)).toBe(true);
    expect(notices.notified(299, at, 0)).toBe(false);
  });
});
