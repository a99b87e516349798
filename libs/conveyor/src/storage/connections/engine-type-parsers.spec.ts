import { types } from 'pg';
import { ENGINE_TYPE_PARSERS, epochMicros, parseTimestamptz } from './engine-type-parsers';

const pgParse = types.getTypeParser(1184, 'text') as (text: string) => Date | number;

describe('parseTimestamptz', () => {
  it.each([
    '2026-11-23 14:10:00+00',
    '2026-11-23 14:10:00.1+00',
    '2026-11-23 14:10:00.123456+00',
    '2026-11-23 14:10:00.999999+00',
    '2026-01-01 00:00:00.5-08',
    '2026-06-30 23:59:59.25+05:30',
    '1999-12-31 23:59:59.000001+05:45',
    '2024-02-29 12:00:00.042-03:30',
    '1901-01-01 00:00:00+00:19:32',
    '0099-01-01 00:00:00+00',
    '0044-03-15 12:00:00+00 BC',
    'infinity',
    '-infinity',
  ])('reads %s exactly as pg does', (text) => {
    const ours = parseTimestamptz(text);
    const theirs = pgParse(text);
    expect(ours instanceof Date ? ours.getTime() : ours).toEqual(theirs instanceof Date ? theirs.getTime() : theirs);
  });

  it('answers a repeated text with an equal but separate Date, also when two texts alternate', () => {
    const a = '2026-11-23 14:10:00.123456+00';
    const b = '2026-11-23 14:10:01.5+00';
    const seen = [a, b, a, b, a].map((text) => parseTimestamptz(text));
    expect(seen.map((d) => d.toISOString())).toEqual([
      '2026-11-23T14:10:00.123Z',
      '2026-11-23T14:10:01.500Z',
      '2026-11-23T14:10:00.123Z',
      '2026-11-23T14:10:01.500Z',
      '2026-11-23T14:10:00.123Z',
    ]);
    seen[0].setTime(0);
    expect(parseTimestamptz(a).toISOString()).toBe('2026-11-23T14:10:00.123Z');
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('agrees with pg on random instants and offsets', () => {
    for (let i = 0; i < 2000; i++) {
      const at = new Date(Math.floor(Math.random() * 4e12));
      const offsetMin = (Math.floor(Math.random() * 57) - 28) * 30;
      const local = new Date(at.getTime() + offsetMin * 60_000).toISOString();
      const micros = String(Math.floor(Math.random() * 1e6))
        .padStart(6, '0')
        .replace(/0+$/, '');
      const abs = Math.abs(offsetMin);
      const offset = `${offsetMin < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${abs % 60 ? `:${String(abs % 60).padStart(2, '0')}` : ''}`;
      const text = `${local.slice(0, 10)} ${local.slice(11, 19)}${micros ? `.${micros}` : ''}${offset}`;
      expect(parseTimestamptz(text).getTime()).toBe((pgParse(text) as Date).getTime());
    }
  });
});

describe('epochMicros', () => {
  it.each([
    ['2026-11-23 14:10:00+00', '1795443000000000'],
    ['2026-11-23 14:10:00.1+00', '1795443000100000'],
    ['2026-11-23 14:10:00.123456+00', '1795443000123456'],
    ['2026-11-23 14:10:00.000001+00', '1795443000000001'],
    ['2026-11-23 14:10:00.999999+00', '1795443000999999'],
    ['2026-11-23 15:40:00.654321+01:30', '1795443000654321'],
    ['2026-11-23 06:10:00.5-08', '1795443000500000'],
    ['1901-01-01 00:19:32.25+00:19:32', '-2177452799750000'],
    ['1970-01-01 00:00:00+00', '0'],
    ['1969-12-31 23:59:59.5+00', '-500000'],
    ['1969-12-31 23:59:59.000001+00', '-999999'],
  ])('reads %s as %s µs, as extract(epoch) does', (text, micros) => {
    expect(epochMicros(text)).toBe(micros);
  });

  it('keeps the microseconds a Date drops, on many instants and offsets', () => {
    // A fixed sequence (a linear congruential generator), so a failure can be reproduced.
    let seed = 26;
    const next = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    for (let i = 0; i < 2000; i++) {
      const seconds = next(2 ** 31) * 2;
      const fraction = next(1e6);
      const offsetMin = (next(57) - 28) * 30;
      const local = new Date((seconds + offsetMin * 60) * 1000).toISOString();
      const digits = String(fraction).padStart(6, '0').replace(/0+$/, '');
      const abs = Math.abs(offsetMin);
      const offset = `${offsetMin < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${abs % 60 ? `:${String(abs % 60).padStart(2, '0')}` : ''}`;
      const text = `${local.slice(0, 10)} ${local.slice(11, 19)}${digits ? `.${digits}` : ''}${offset}`;
      expect(epochMicros(text)).toBe(String(BigInt(seconds) * 1_000_000n + BigInt(fraction)));
    }
  });
});

describe('ENGINE_TYPE_PARSERS for bigint', () => {
  const pgInt8 = types.getTypeParser(20, 'text') as (text: string) => unknown;
  const ours = ENGINE_TYPE_PARSERS.getTypeParser(20, 'text') as (text: string) => unknown;

  it.each(['0', '7', '9223372036854775807', '-9223372036854775808'])('reads %s exactly as pg does', (text) => {
    expect(ours(text)).toBe(pgInt8(text));
  });
});
