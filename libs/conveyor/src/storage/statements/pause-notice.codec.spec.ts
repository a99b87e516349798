import { parseCancelNotice } from './cancel-notice.codec';
import { parsePauseNotice } from './pause-notice.codec';
import { parseWatchNotice } from './watch-notice.codec';

describe('parsePauseNotice', () => {
  it('reads a pause notice, which the other notice readers leave alone', () => {
    const payload = '{"pause":"emails"}';
    expect(parsePauseNotice(payload)).toBe('emails');
    expect(parseCancelNotice(payload)).toBeNull();
    expect(parseWatchNotice(payload)).toBeNull();
  });

  it('leaves due-time notices, other notices, empty payloads and malformed objects alone', () => {
    for (const payload of [
      undefined,
      '',
      '1764100000000',
      'ready',
      '{',
      '{"pause":1}',
      '{"watch":15000}',
      '{"cancel":"j1","token":"t","owner":"o"}',
    ]) {
      expect(parsePauseNotice(payload)).toBeNull();
    }
  });
});
