import { parseCancelNotice } from './cancel-notice.codec';

describe('parseCancelNotice', () => {
  it('reads a cancel notice', () => {
    expect(parseCancelNotice('{"cancel":"j1","token":"t1","owner":"host:1:abc"}')).toEqual({
      jobId: 'j1',
      token: 't1',
      owner: 'host:1:abc',
    });
  });

  it('leaves due-time notices, empty payloads and malformed objects alone', () => {
    for (const payload of [
      undefined,
      '',
      '1764100000000',
      '{',
      '{"cancel":"j1"}',
      '{"cancel":1,"token":"t","owner":"o"}',
      '{"owner":null}',
    ]) {
      expect(parseCancelNotice(payload)).toBeNull();
    }
  });
});
