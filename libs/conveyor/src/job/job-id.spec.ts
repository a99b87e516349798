import { newJobId } from './job-id';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newJobId', () => {
  it('makes RFC 9562 version 7 uuids carrying the current millisecond', () => {
    const before = Date.now();
    const id = newJobId();
    expect(id).toMatch(UUID_V7);
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    // The counter may have pushed the timestamp a little ahead of the clock, never behind it.
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 5);
  });

  it('is strictly increasing within a process, even many ids per millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newJobId());
    const outOfOrder = ids.filter((id, i) => i > 0 && !(id > ids[i - 1]));
    expect(outOfOrder).toEqual([]);
    expect(ids.filter((id) => !UUID_V7.test(id))).toEqual([]);
  });

  it('keeps increasing when the clock steps back', () => {
    const first = newJobId();
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.now() - 60_000);
    try {
      expect(newJobId() > first).toBe(true);
    } finally {
      now.mockRestore();
    }
  });
});
