import { SqlParams } from './sql-params';

describe('SqlParams', () => {
  it('numbers placeholders in the order values are added, across pieces', () => {
    const p = new SqlParams();
    const first = `a = ${p.add('x')} AND b = ${p.add(2)}`;
    const second = `c = ${p.add(null)}`;
    expect(`${first} AND ${second}`).toBe('a = $1 AND b = $2 AND c = $3');
    expect(p.values).toEqual(['x', 2, null]);
  });

  it('starts at $1', () => {
    expect(new SqlParams().add(true)).toBe('$1');
  });
});
