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

  it('forgets the times before now and gives the earliest left, in order', () => {
    const due = new DueTimes();
    for (const at of [900, 300, 600, 1_200]) due.add(at);
    expect(due.passed(301)).toBe(600);
    expect(due.passed(600)).toBe(600); // in this very millisecond: its run_at may still be ahead
    expect(due.passed(950)).toBe(1_200);
    expect(due.passed(1_201)).toBeNull();
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
    expect(due.passed(kept)).toBe(kept);
    expect(due.passed(kept + 1)).toBeNull();
  });
});
