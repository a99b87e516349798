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
    clock.read(T + 1_000 + 330, T + 1_000, T + 1_040); // a slow one: its middle is less certain
    expect(clock.offset).toBe(300);
    for (let i = 1; i <= 4; i++) clock.read(T + i * 10_000 + 303, T + i * 10_000, T + i * 10_000 + 2);
    expect(clock.offset).toBe(300); // the quick reading is among the last six still
    clock.read(T + 60_000 + 303, T + 60_000, T + 60_002);
    expect(clock.offset).toBe(302);
  });

  it('forgets the readings before a step of either clock at once', () => {
    const clock = new DatabaseClock();
    clock.read(T + 300.5, T, T + 1);
    // A minute on, 20 ms apart: within the round trips and the drift a minute allows, so no step.
    clock.read(T + 60_000 + 322.5, T + 60_000, T + 60_005);
    expect(clock.offset).toBe(300);
    // This host's clock stepped back 40 s: the quick reading before it would hold every due timer back 40 s.
    clock.read(T + 61_302.5, T + 21_000, T + 21_005);
    expect(clock.offset).toBe(40_300);
    expect(clock.uncertaintyMs).toBe(2.5);
  });

  it('is as uncertain as half the round trip of the reading it uses', () => {
    const clock = new DatabaseClock();
    expect(clock.uncertaintyMs).toBe(0);
    clock.read(T + 300.5, T, T + 9);
    expect(clock.uncertaintyMs).toBe(4.5);
    clock.read(T + 1_000 + 330, T + 1_000, T + 1_040);
    expect(clock.uncertaintyMs).toBe(4.5);
  });

  it('ignores a reading over which this host’s clock went back', () => {
    const clock = new DatabaseClock();
    clock.read(T + 100, T, T - 5_000);
    expect(clock.offset).toBe(0);
  });
});
