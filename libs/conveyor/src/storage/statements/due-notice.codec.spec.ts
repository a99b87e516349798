import { parseDueNotice, READY_NOTICE_PREFIX } from './due-notice.codec';

describe('parseDueNotice', () => {
  it('reads a scheduled due time and jobs ready already', () => {
    expect(parseDueNotice('1795725919900')).toEqual({ at: 1795725919900, ready: false });
    expect(parseDueNotice(`${READY_NOTICE_PREFIX}1795725919900`)).toEqual({ at: 1795725919900, ready: true });
  });

  it('is null for anything else', () => {
    // READY_NOTICE alone too: a listener claims at once for it, with nothing to pair it with.
    for (const payload of [undefined, '', 'ready', 'ready:', 'ready:x', '{"watch":1000}', 'soon'])
      expect(parseDueNotice(payload)).toBeNull();
  });
});
