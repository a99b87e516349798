import { DueTimes, MAX_DUE_TIMES } from './due-times';

describe('DueTimes', () => {
  it('says when a time is the new earliest, and keeps each time once', () => {
    const due = new DueTimes();
    expect(due.add(500)).toBe(true);
    expect(due.add(800)).toBe(false);
    expect(due.add(300)).toBe(true);
    expect(due.add(300)).toBe(false);
    expect(due.add(800)).toBe(false);
    expect(due.size).toBe(3);
  });

  it('forgets the times now has reached and gives the earliest left, in order', () => {
    const due = new DueTimes();
    for (const at of [900, 300, 600, 1_200]) due.add(at);
    expect(due.reached(300)).toBe(600);
    expect(due.reached(599)).toBe(600);
    expect(due.reached(950)).toBe(1_200);
    expect(due.reached(1_200)).toBeNull();
    expect(due.size).toBe(0);
  });

  it('keeps at most MAX_DUE_TIMES, dropping the latest', () => {
    const due = new DueTimes();
    for (let i = 0; i < MAX_DUE_TIMES; i++) due.add(1_000 + i * 10);
    expect(due.add(1_000_000)).toBe(false);
    expect(due.size).toBe(MAX_DUE_TIMES);
    expect(due.add(5)).toBe(true);
    expect(due.size).toBe(MAX_DUE_TIMES);
    const kept = 1_000 + (MAX_DUE_TIMES - 2) * 10; // the latest kept: the last one added before 5 was dropped
    expect(due.reached(kept - 1)).toBe(kept);
    expect(due.reached(kept)).toBeNull();
  });
});
