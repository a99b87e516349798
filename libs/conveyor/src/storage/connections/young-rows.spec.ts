import { youngRows } from './young-rows';

describe('youngRows', () => {
  it('hands back the rows in a new array and empties the one it was given', () => {
    const a = { id: 'a' };
    const b = { id: 'b' };
    const fromPg = [a, b];
    const rows = youngRows(fromPg);
    expect(rows).not.toBe(fromPg);
    expect(rows[0]).toBe(a);
    expect(rows[1]).toBe(b);
    expect(fromPg).toHaveLength(0);
  });
});
