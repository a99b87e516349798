import { ReconnectBackoff } from './reconnect-backoff';

describe('ReconnectBackoff', () => {
  it('waits 100 ms, doubling up to 2 s, and names only the first loss of an outage', () => {
    const backoff = new ReconnectBackoff();
    const losses = Array.from({ length: 7 }, () => backoff.lost());
    expect(losses.map((l) => l.waitMs)).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
    expect(losses.map((l) => l.first)).toEqual([true, false, false, false, false, false, false]);
  });

  it('says a connect ends an outage only after losses, and starts the waits over', () => {
    const backoff = new ReconnectBackoff();
    expect(backoff.connected()).toBe(false);
    backoff.lost();
    backoff.lost();
    expect(backoff.connected()).toBe(true);
    expect(backoff.lost()).toEqual({ waitMs: 100, first: true });
  });
});
