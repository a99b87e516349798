import { RescueHold } from './rescue-hold';

describe('RescueHold', () => {
  it('carries the duties while no outage was seen', () => {
    const hold = new RescueHold(4000);
    expect(hold.dutiesNow(0, false)).toBe(true);
    expect(hold.dutiesNow(10_000, false)).toBe(true);
  });

  it('holds them from the first round through an outage, however long after the outage that round comes', () => {
    const hold = new RescueHold(4000);
    // The leader's rounds are 10 s apart: the first one through comes 9 s after its last failure.
    expect(hold.dutiesNow(19_000, true)).toBe(false);
    expect(hold.dutiesNow(22_000, false)).toBe(false);
    expect(hold.dutiesNow(23_000, false)).toBe(true);
  });

  it('starts the hold again when the round that began it did not get through', () => {
    const hold = new RescueHold(4000);
    expect(hold.dutiesNow(0, true)).toBe(false);
    hold.roundFailed();
    expect(hold.dutiesNow(10_000, true)).toBe(false);
    expect(hold.dutiesNow(13_000, true)).toBe(false);
    expect(hold.dutiesNow(14_000, true)).toBe(true);
  });

  it('lets a round carry the duties between two holds, however often the database is found unreachable', () => {
    const hold = new RescueHold(4000);
    expect(hold.dutiesNow(0, true)).toBe(false);
    expect(hold.dutiesNow(4000, true)).toBe(true);
    hold.dutiesDone();
    expect(hold.dutiesNow(5000, true)).toBe(false);
    expect(hold.dutiesNow(9000, true)).toBe(true);
    // Until a round carries them, they stay owed.
    expect(hold.dutiesNow(9500, true)).toBe(true);
  });
});
