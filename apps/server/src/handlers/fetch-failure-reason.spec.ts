import { fetchFailureReason } from './fetch-failure-reason';

describe('fetchFailureReason', () => {
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  it('replaces "fetch failed" with its cause', () => {
    const err = new TypeError('fetch failed', { cause: withCode('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED') });
    expect(fetchFailureReason(err)).toBe('connect ECONNREFUSED 127.0.0.1:9');
  });

  it('names the code when the message does not, and reads an AggregateError without a message', () => {
    const attempts = new AggregateError([new Error('connect ECONNREFUSED ::1:9'), new Error('connect ECONNREFUSED 127.0.0.1:9')], '');
    const err = new TypeError('fetch failed', { cause: Object.assign(attempts, { code: 'ECONNREFUSED' }) });
    expect(fetchFailureReason(err)).toBe('AggregateError: connect ECONNREFUSED ::1:9; connect ECONNREFUSED 127.0.0.1:9');
    expect(fetchFailureReason(new TypeError('fetch failed', { cause: withCode('socket hang up', 'ECONNRESET') }))).toBe(
      'ECONNRESET socket hang up',
    );
  });

  it('keeps an error without a cause as it is', () => {
    expect(fetchFailureReason(new TypeError('Invalid URL'))).toBe('TypeError: Invalid URL');
    expect(fetchFailureReason('boom')).toBe('boom');
  });
});
