import { isRunAtText } from './run-at-text';

describe('isRunAtText', () => {
  it.each([
    '2030-01-01',
    '2030-01-01T12:00Z',
    '2030-01-01T12:00:00Z',
    '2030-01-01T12:00:00.123456789+05:30',
    '2028-02-29',
    '2000-02-29T00:00:00-15:59',
    '0001-01-01',
    '9999-12-31T23:59:59Z',
    '9999-12-31T23:59:59.999999999Z',
    '9999-12-31T23:59:59+12:00',
    '0001-01-01T00:00:00-12:00',
  ])('accepts %s', (text) => expect(isRunAtText(text)).toBe(true));

  it.each([
    ['year 0', '0000-01-01'],
    ['a day the month lacks', '2030-02-30'],
    ['29 February outside a leap year', '2100-02-29'],
    ['month 13', '2030-13-01'],
    ['day 0', '2030-01-00'],
    ['hour 24', '2030-01-01T24:00Z'],
    ['minute 60', '2030-01-01T12:60Z'],
    ['second 60', '2030-01-01T12:00:60Z'],
    ['an offset past 15 hours', '2030-01-01T12:00+16:00'],
    ['a time without offset', '2030-01-01T12:00:00'],
    ['a week date', '2030-W05-3'],
    ['an ordinal date', '2030-010'],
    ['basic format', '20300101T00Z'],
    ['an extended year', '+012030-01-01'],
    ['a time in year 10000 in UTC', '9999-12-31T23:59:59-12:00'],
    ['a time in year 10000 in UTC by a minute', '9999-12-31T23:59:00-00:01'],
    ['a time before year 0001 in UTC', '0001-01-01T00:00:00+00:01'],
  ])('refuses %s (%s)', (_why, text) => expect(isRunAtText(text)).toBe(false));
});
