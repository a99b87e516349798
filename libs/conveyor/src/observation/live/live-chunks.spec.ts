import { LIVE_CHUNK_BYTES } from '../../storage/statements/live-changes-notify.sql';
import { LiveItem } from './live-event';
import { liveChunks } from './live-chunks';

const item = (n: number, progress: LiveItem[5] = null, queue = 'default', type = 'SEND_EMAIL'): LiveItem => [
  `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
  'COMPLETED',
  queue,
  type,
  String(1795443000000000 + n),
  progress,
];

describe('liveChunks', () => {
  it('sends nothing for no items, and a few items as one JSON array', () => {
    expect(liveChunks([])).toEqual([]);
    const items = [item(1), item(2, { percent: 50, data: { step: 'b' } })];
    expect(liveChunks(items)).toHaveLength(1);
    expect(JSON.parse(liveChunks(items)[0])).toEqual(items);
  });

  it('writes what JSON.stringify writes, chunked by UTF-8 bytes: escaped and multi-byte queues, types and progress', () => {
    const big = { percent: 1, data: { text: 'ü'.repeat(500), quote: '"\\\n' } }; // 1,000+ bytes of data as JSON
    const items = Array.from({ length: 500 }, (_, n) =>
      item(n, n % 7 === 0 ? big : null, n % 3 === 0 ? 'café' : 'default', n % 5 === 0 ? 'say "hi"\\ü' : 'SEND_EMAIL'),
    );
    const chunks = liveChunks(items);
    expect(chunks.length).toBeGreaterThan(10);
    let at = 0;
    for (const [c, chunk] of chunks.entries()) {
      const count = (JSON.parse(chunk) as LiveItem[]).length;
      const texts = items.slice(at, at + count).map((i) => JSON.stringify(i));
      at += count;
      expect(chunk).toBe(`[${texts.join(',')}]`);
      expect(Buffer.byteLength(chunk)).toBeLessThan(8000);
      // Closed at the first item that takes it past LIVE_CHUNK_BYTES (items counted with their separator).
      const bytes = texts.map((t) => Buffer.byteLength(t) + 1);
      const total = bytes.reduce((a, b) => a + b, 0);
      if (c < chunks.length - 1) expect(total).toBeGreaterThan(LIVE_CHUNK_BYTES);
      expect(total - bytes[bytes.length - 1]).toBeLessThanOrEqual(LIVE_CHUNK_BYTES);
    }
    expect(at).toBe(items.length);
  });
});
