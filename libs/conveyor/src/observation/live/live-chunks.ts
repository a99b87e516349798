import { LIVE_CHUNK_BYTES } from '../../storage/statements/live-changes-notify.sql';
import { LiveItem } from './live-event';

/**
 * Live items as notification payloads: JSON arrays of items in order, each closed at the first item that takes it
 * past LIVE_CHUNK_BYTES (the mark liveChangesNotify chunks by). An item stays well under 2000 bytes, so every payload
 * stays under PostgreSQL's limit of 8000.
 */
export function liveChunks(items: readonly LiveItem[]): string[] {
  const chunks: string[] = [];
  const writer = new ItemWriter();
  let open: string[] = [];
  let bytes = 0;
  for (const item of items) {
    open.push(writer.write(item));
    bytes += writer.bytes + 1;
    if (bytes > LIVE_CHUNK_BYTES) {
      chunks.push(`[${open.join(',')}]`);
      open = [];
      bytes = 0;
    }
  }
  if (open.length > 0) chunks.push(`[${open.join(',')}]`);
  return chunks;
}

/**
 * Writes items as JSON. An item's id, status and time are plain ASCII (a uuid, a status name, digits), so only its
 * queue, type and progress need JSON's escaping and may hold multi-byte characters; a writer's items mostly repeat
 * their queues and types, whose texts are kept.
 */
class ItemWriter {
  /** UTF-8 bytes of the last item written. */
  bytes = 0;
  private readonly strings = new Map<string, { text: string; extraBytes: number }>();

  write(item: LiveItem): string {
    const [id, status, queue, type, atUs, progress] = item;
    const q = this.string(queue);
    const t = this.string(type);
    const p = progress === null ? 'null' : JSON.stringify(progress);
    const text = `["${id}","${status}",${q.text},${t.text},"${atUs}",${p}]`;
    this.bytes = text.length + q.extraBytes + t.extraBytes + (progress === null ? 0 : Buffer.byteLength(p) - p.length);
    return text;
  }

  private string(value: string): { text: string; extraBytes: number } {
    let known = this.strings.get(value);
    if (!known) {
      const text = JSON.stringify(value);
      known = { text, extraBytes: Buffer.byteLength(text) - text.length };
      this.strings.set(value, known);
    }
    return known;
  }
}
