import { DatabaseOutages } from './database-outages.service';

describe('DatabaseOutages', () => {
  it('has seen no outage until told of one, and then one after any earlier moment', () => {
    const outages = new DatabaseOutages();
    expect(outages.seenSince(-Infinity)).toBe(false);
    const before = performance.now() - 1;
    outages.seen();
    expect(outages.seenSince(-Infinity)).toBe(true);
    expect(outages.seenSince(before)).toBe(true);
    expect(outages.seenSince(performance.now() + 1)).toBe(false);
  });
});
