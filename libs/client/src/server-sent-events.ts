/** One server-sent event. */
export interface ServerSentEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * The events of a `text/event-stream` body, as they arrive; comments (`: ping`) are skipped. Ends when the body
 * does; rejects when reading it fails (the connection dropped, the signal aborted).
 */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let lfEndsLine = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      let text = decoder.decode(value, { stream: true });
      // A CR that ended the last chunk ended its line at once (a stream may end lines with CR alone); when it was
      // the first half of a CRLF, the LF that starts this chunk belongs to that line end, not to an empty line.
      if (lfEndsLine && text.startsWith('\n')) {
        text = text.slice(1);
        lfEndsLine = false;
      }
      if (text !== '') lfEndsLine = text.endsWith('\r');
      buffer += text.replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseBlock(block);
        if (event) yield event;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function parseBlock(block: string): ServerSentEvent | null {
  const event: ServerSentEvent = { event: 'message', data: '', id: undefined };
  let data: string[] | null = null;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') (data ??= []).push(value);
    else if (field === 'event') event.event = value;
    else if (field === 'id') event.id = value;
  }
  if (data === null) return null;
  event.data = data.join('\n');
  return event;
}
