import { parseCancelNotice } from './cancel-notice.codec';
import { parseWatchNotice, watchNoticePayload } from './watch-notice.codec';

describe('watch notice', () => {
  it('carries the lease length', () => {
    expect(parseWatchNotice(watchNoticePayload(15_000))).toBe(15_000);
  });

  it.each([undefined, '', '1795642038441', '{"cancel":"a","token":"b","owner":"c"}', '{"watch":-1}', '{"watch":"15000"}', '{not json'])(
    'is not read from %p',
    (payload) => expect(parseWatchNotice(payload)).toBeNull(),
  );

  it('is no cancel notice', () => {
    expect(parseCancelNotice(watchNoticePayload(15_000))).toBeNull();
  });
});
