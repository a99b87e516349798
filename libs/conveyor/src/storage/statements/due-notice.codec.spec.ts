import { parseDueNotice, READY_NOTICE_PREFIX } from './due-notice.codec';

describe('parseDueNotice', () => {
  it('reads a scheduled due time and jobs ready already', () => {
    expect(parseDueNotice('1795725919900')).toEqual({ at: 1795725919900, ready: false, later: [] });
    expect(parseDueNotice(`${READY_NOTICE_PREFIX}1795725919900`)).toEqual({ at: 1795725919900, ready: true, later: [] });
  });

  it('reads the later due times of an insert after its first', () => {
    expect(parseDueNotice('1795725919900,1795725920400,1795725921000')).toEqual({
      at: 1795725919900,
      ready: false,
      later: [1795725920400, 1795725921000],
    });
    expect(parseDueNotice(`${READY_NOTICE_PREFIX}1795725919900,1795725920400`)).toEqual({
      at: 1795725919900,
      ready: true,
      later: [1795725920400],
    });
  });

  it('is null for anything else', () => {
    // READY_NOTICE alone too: a listener claims at once for it, with nothing to pair it with.
    for (const payload of [
      undefined,
      '',
      'ready',
      'ready:',
      'ready:x',
      '{"watch":1000}',
      'soon',
      '1795725919900,',
      ',1795725919900',
      '1,,2',
    ])
      expect(parseDueNotice(payload)).toBeNull();
  });
});
