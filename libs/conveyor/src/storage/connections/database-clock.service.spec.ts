import { DatabaseClock } from './database-clock.service';

describe('DatabaseClock', () => {
  const T = 1_800_000_000_000;

  it('takes the clocks to agree before its first reading', () => {
    const clock = new DatabaseClock();
    expect(clock.offset).toBe(0);
    expect(Math.abs(clock.now() - Date.now())).toBeLessThanOrEqual(1);
  });

  it('estimates the offset from the middle of the round trip', () => {
    const clock = new DatabaseClock();
    clock.read(T + 304.5, T, T + 9); // the database 300 ms ahead, read halfway through a 9 ms round trip
    expect(clock.offset).toBe(300);
    expect(Math.abs(clock.now() - (Date.now() + 300))).toBeLessThanOrEqual(1);
  });

  it('keeps the reading with the shortest round trip, until it is five minutes old', () => {
    const clock = new DatabaseClock();
    clock.read(T + 301, T, T + 2);
    clock.read(T + 1_000 + 250, T + 1_000, T + 1_040); // slower: its midpoint is less certain
    expect(clock.offset).toBe(300);
    clock.read(T + 2_000 - 49.5, T + 2_000, T + 2_001); // quicker: taken
    expect(clock.offset).toBe(-50);
    clock.read(T + 400_000 + 120, T + 400_000, T + 400_040); // the kept one is stale: any reading is taken
    expect(clock.offset).toBe(100);
  });
});
