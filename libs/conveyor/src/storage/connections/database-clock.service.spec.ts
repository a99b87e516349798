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

  it('uses the reading with the shortest round trip of the last six', () => {
    const clock = new DatabaseClock();
    clock.read(T + 300.5, T, T + 1);
    clock.read(T + 1_000 + 250, T + 1_000, T + 1_040); // a slow one: its middle is less certain
    expect(clock.offset).toBe(300);
    for (let i = 1; i <= 4; i++) clock.read(T + i * 10_000 - 49, T + i * 10_000, T + i * 10_000 + 2); // a clock stepped
    expect(clock.offset).toBe(300); // the quick reading is among the last six still
    clock.read(T + 60_000 - 49, T + 60_000, T + 60_002);
    expect(clock.offset).toBe(-50);
  });

  it('is as uncertain as half the round trip of the reading it uses', () => {
    const clock = new DatabaseClock();
    expect(clock.uncertaintyMs).toBe(0);
    clock.read(T + 300.5, T, T + 9);
    expect(clock.uncertaintyMs).toBe(4.5);
    clock.read(T + 1_000 + 250, T + 1_000, T + 1_040);
    expect(clock.uncertaintyMs).toBe(4.5);
  });

  it('ignores a reading over which this host’s clock went back', () => {
    const clock = new DatabaseClock();
    clock.read(T + 100, T, T - 5_000);
    expect(clock.offset).toBe(0);
  });
});
