import { ApiKeyRing } from './api-key-ring';

describe('ApiKeyRing', () => {
  const ring = new ApiKeyRing([
    { role: 'producer', key: 'p-key-1' },
    { role: 'producer', key: 'p-key-2' },
    { role: 'admin', key: 'a-key' },
    { role: 'producer', key: 'both' },
    { role: 'admin', key: 'both' },
  ]);

  it('finds the role of every configured key, naming the key by position only', () => {
    expect(ring.match('p-key-1')).toEqual({ role: 'producer', keyId: 'producer#1' });
    expect(ring.match('p-key-2')).toEqual({ role: 'producer', keyId: 'producer#2' });
    expect(ring.match('a-key')).toEqual({ role: 'admin', keyId: 'admin#3' });
  });

  it('refuses near misses, prefixes, extensions and other lengths', () => {
    for (const guess of ['', 'p-key-', 'p-key-10', 'P-KEY-1', 'a-key ', 'x'.repeat(10_000)]) expect(ring.match(guess)).toBeNull();
  });

  it('gives the strongest role to a key listed twice', () => {
    expect(ring.match('both')?.role).toBe('admin');
  });

  it('is empty without keys', () => {
    expect(new ApiKeyRing([]).isEmpty).toBe(true);
    expect(ring.isEmpty).toBe(false);
  });
});
