import { RetryLaterError } from './retry-later.error';

describe('RetryLaterError', () => {
  it.each([
    [NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [1e16, '10000000000000000'],
    [new Date('next tuesday'), 'Invalid Date'],
    ['120', '"120"'],
  ])('refuses %p with a RangeError that names it', (when, shown) => {
    expect(() => new RetryLaterError(when as number)).toThrow(
      new RangeError(`RetryLaterError needs a valid Date or a finite delay in milliseconds; got ${shown}`),
    );
    expect(() => new RetryLaterError(when as number)).toThrow(RangeError);
  });
});
