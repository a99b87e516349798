import { ConveyorHttpError } from './conveyor-http.error';
import { ConveyorNetworkError, isNoAnswer } from './conveyor-network.error';
import { isTransientFailure, retryDelayOf } from './transient-failure';

const answered = (status: number, retryAfterMs: number | null = null) =>
  new ConveyorHttpError(status, null, 'GET', '/jobs/x', retryAfterMs);

describe('isTransientFailure', () => {
  it('tries again after no answer, a timeout, a 5xx or a 429', () => {
    const noAnswer = new ConveyorNetworkError(
      'GET',
      '/jobs/x',
      new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') }),
    );
    const timedOut = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect([noAnswer, timedOut, answered(500), answered(502), answered(503), answered(429)].map(isTransientFailure)).toEqual(
      Array(6).fill(true),
    );
  });

  it('takes for no answer only errors that carry a socket or DNS code, themselves or as their cause', () => {
    const withCode = (code: string) => new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
    expect(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'UND_ERR_SOCKET'].map((code) => isNoAnswer(withCode(code)))).toEqual(
      Array(4).fill(true),
    );
    expect(
      [new TypeError('fetch failed', { cause: new Error('bad port') }), withCode('ERR_SSL_WRONG_VERSION_NUMBER')].map(isNoAnswer),
    ).toEqual([false, false]);
  });

  it('does not send again what fetch refused to send, nor after an error of the code', () => {
    const badHeader = new TypeError('Headers.append: "a\\nb" is an invalid header value.');
    expect([badHeader, new RangeError('a bug'), new SyntaxError('Unexpected token <')].map(isTransientFailure)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it("takes any other answer as the server's word", () => {
    expect([400, 401, 403, 404, 409, 413].map((status) => isTransientFailure(answered(status)))).toEqual(Array(6).fill(false));
  });
});

describe('retryDelayOf', () => {
  it("waits the server's Retry-After when it sent one, else the fallback", () => {
    expect(retryDelayOf(answered(503, 2000), 100)).toBe(2000);
    expect(retryDelayOf(answered(503), 100)).toBe(100);
    expect(retryDelayOf(new RangeError('a bug'), 100)).toBe(100);
  });
});
