import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { LiveStream } from './live-stream';

/** A response whose client reads nothing until told to: `writableNeedDrain` holds until `drain()`. */
function stalledResponse() {
  const res = Object.assign(new EventEmitter(), {
    writableNeedDrain: false,
    writableLength: 0,
    writeHead: () => res,
    write: () => true,
    end: () => res.emit('close'),
    destroy: () => res.emit('close'),
  });
  const drain = () => {
    res.writableNeedDrain = false;
    res.emit('drain');
  };
  return { res, drain, raw: res as unknown as ServerResponse };
}

describe('LiveStream', () => {
  const limits = { maxBufferBytes: 1024, pingIntervalMs: 60_000 };
  const hooks = { closed: () => undefined, dropped: () => undefined, sent: () => undefined };

  it('keeps no listener of a wait for the reader once the reader has caught up', async () => {
    const { res, drain, raw } = stalledResponse();
    const stream = new LiveStream(raw, limits, hooks);
    stream.open({});
    const before = { close: res.listenerCount('close'), drain: res.listenerCount('drain') };
    for (let i = 0; i < 50; i++) {
      res.writableNeedDrain = true;
      const waited = stream.drained();
      drain();
      await waited;
    }
    expect({ close: res.listenerCount('close'), drain: res.listenerCount('drain') }).toEqual(before);
    stream.end();
  });

  it('ends a wait when the client leaves instead of reading', async () => {
    const { res, raw } = stalledResponse();
    const stream = new LiveStream(raw, limits, hooks);
    stream.open({});
    res.writableNeedDrain = true;
    const waited = stream.drained();
    res.emit('close');
    await waited;
    expect(stream.isOpen).toBe(false);
    expect(res.listenerCount('drain')).toBe(0);
  });
});
