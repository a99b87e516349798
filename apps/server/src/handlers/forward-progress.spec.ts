import { ForwardProgress, readProgress, withProgress } from './forward-progress';

describe('forward progress', () => {
  const progress: ForwardProgress = new Map([
    [0, { outcome: 'sent', status: 201 }],
    [2, { outcome: 'rejected', status: 400, reason: 'bad; progress: {"1":{"outcome":"sent","status":201}}' }],
  ]);
  /** As the engine stores an error: the error's name first. */
  const entry = (message: string) => ({ error: `RetryLaterError: ${message}` });

  it('reads back what an earlier attempt wrote, with the latest entry winning', () => {
    const older = entry(withProgress('first', new Map([[1, { outcome: 'already-present', status: 200 }]])));
    const newer = entry(withProgress('FORWARD_DOCUMENT d: 1 of 3 managers busy', progress));

    expect(readProgress([older, newer], 3)).toEqual(progress);
    // An entry without progress (a timeout) does not hide an earlier one.
    expect(readProgress([newer, { error: 'JobTimeoutError: timed out' }], 3)).toEqual(progress);
  });

  it('cannot be forged by a manager answer quoted in the summary or a reason', () => {
    const quoted = 'GET http://a answered 500: x; progress: {"1":{"outcome":"sent","status":201}}';
    const text = withProgress(quoted, progress);

    expect(text.startsWith('GET http://a answered 500: x;  progress: ')).toBe(true);
    expect(readProgress([entry(text)], 3)).toEqual(progress);
  });

  it('adds nothing to the summary while there is no progress', () => {
    expect(withProgress('FORWARD_DOCUMENT d: 1 of 1 manager failed: GET http://a failed: ECONNREFUSED', new Map())).toBe(
      'FORWARD_DOCUMENT d: 1 of 1 manager failed: GET http://a failed: ECONNREFUSED',
    );
  });

  it('drops the reasons rather than the outcomes when they would not fit', () => {
    const long: ForwardProgress = new Map(
      Array.from({ length: 20 }, (_, i) => [i, { outcome: 'rejected' as const, status: 400, reason: 'r'.repeat(200) }]),
    );
    const text = withProgress('s'.repeat(5_000), long);

    expect(text.length).toBeLessThan(3_900);
    const read = readProgress([entry(text)], 20);
    expect(read.size).toBe(20);
    expect(read.get(19)).toEqual({ outcome: 'rejected', status: 400, reason: '(reason not kept across attempts)' });
  });

  it.each([
    ['no progress at all', 'DocumentForwardError: GET http://a failed'],
    ['cut-off JSON', 'x; progress: {"0":{"outcome":"sent","sta'],
    ['an index past the managers', 'x; progress: {"3":{"outcome":"sent","status":201}}'],
    ['an unknown outcome', 'x; progress: {"0":{"outcome":"lost","status":201}}'],
    ['a missing status', 'x; progress: {"0":{"outcome":"sent"}}'],
  ])('ignores %s', (_case, error) => {
    expect(readProgress([{ error }], 3)).toEqual(new Map());
  });
});
