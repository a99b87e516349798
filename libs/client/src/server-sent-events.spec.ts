import { serverSentEvents, ServerSentEvent } from './server-sent-events';

/** A body that arrives in exactly these chunks. */
function bodyOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function read(chunks: string[]): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of serverSentEvents(bodyOf(chunks))) events.push(event);
  return events;
}

describe('serverSentEvents', () => {
  it('reads events split anywhere across chunks, skipping comments', async () => {
    const text = ': connected\nretry: 2000\n\nid: 1.a\nevent: job\ndata: {"a":1}\n\n: ping\n\nid: 2.b\nevent: job\ndata: x\ndata: y\n\n';
    const whole = await read([text]);
    expect(whole).toEqual([
      { event: 'job', data: '{"a":1}', id: '1.a' },
      { event: 'job', data: 'x\ny', id: '2.b' },
    ]);
    for (let at = 1; at < text.length; at++) expect(await read([text.slice(0, at), text.slice(at)])).toEqual(whole);
  });

  it('reads an event whose lines end with CR alone as soon as its last CR arrives', async () => {
    let send!: (text: string) => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        send = (text) => controller.enqueue(new TextEncoder().encode(text));
      },
    });
    const events = serverSentEvents(body);
    send('id: 1.a\revent: job\rdata: {"a":1}\r\r');
    await expect(events.next()).resolves.toEqual({ done: false, value: { event: 'job', data: '{"a":1}', id: '1.a' } });
    await events.return(undefined);
  });

  it('reads CRLF line ends, also when a CR and its LF arrive in two chunks', async () => {
    const text = 'id: 1.a\r\nevent: job\r\ndata: {"a":1}\r\n\r\nid: 2.b\r\nevent: job\r\ndata: {"b":2}\r\n\r\n';
    const expected = [
      { event: 'job', data: '{"a":1}', id: '1.a' },
      { event: 'job', data: '{"b":2}', id: '2.b' },
    ];
    for (let at = 1; at < text.length; at++) expect(await read([text.slice(0, at), text.slice(at)])).toEqual(expected);
  });

  it('reads a CRLF whose LF comes alone, then a blank line, as the end of the event', async () => {
    expect(await read(['data: x\r', '\n', '\ndata: y\n\n'])).toEqual([
      { event: 'message', data: 'x', id: undefined },
      { event: 'message', data: 'y', id: undefined },
    ]);
  });
});
