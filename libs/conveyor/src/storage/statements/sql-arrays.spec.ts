import { uuidArray } from './sql-arrays';

describe('uuidArray', () => {
  const a = '0192f3a4-5b6c-7d8e-9f00-112233445566';
  const b = 'FFFFFFFF-0000-4AbC-8dEf-0123456789aB';

  it("writes PostgreSQL's binary uuid[]: one dimension, no nulls, uuid elements of 16 bytes each", () => {
    const buf = uuidArray([a, b]);
    expect(buf.readInt32BE(0)).toBe(1); // dimensions
    expect(buf.readInt32BE(4)).toBe(0); // has nulls
    expect(buf.readInt32BE(8)).toBe(2950); // element type: uuid
    expect(buf.readInt32BE(12)).toBe(2); // length
    expect(buf.readInt32BE(16)).toBe(1); // lower bound
    expect(buf.readInt32BE(20)).toBe(16);
    expect(buf.subarray(24, 40).toString('hex')).toBe(a.replace(/-/g, ''));
    expect(buf.readInt32BE(40)).toBe(16);
    expect(buf.subarray(44, 60).toString('hex')).toBe(b.replace(/-/g, '').toLowerCase());
    expect(buf).toHaveLength(60);
  });

  it('writes an empty array with no dimensions, as PostgreSQL does', () => {
    const buf = uuidArray([]);
    expect(buf).toHaveLength(12);
    expect(buf.readInt32BE(0)).toBe(0);
    expect(buf.readInt32BE(8)).toBe(2950);
  });

  it.each([
    ['too short', a.slice(1)],
    ['too long', `${a}0`],
    ['a hyphen missing', a.replace('-', '0')],
    ['a non-hex digit', a.replace('5b6c', '5b6g')],
    ['a character outside Latin-1 that masks to a hex digit', a.replace('5b6c', '5b6\u0161')],
    ['no hyphens at all', a.replace(/-/g, '').padEnd(36, '0')],
  ])('throws on %s instead of writing another id', (_label, text) => {
    expect(() => uuidArray([a, text])).toThrow(TypeError);
  });
});
