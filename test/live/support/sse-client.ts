import { request, IncomingMessage, ClientRequest } from 'node:http';
import { waitFor } from '../../support/wait-for';

/** One server-sent event as received. */
export interface ReceivedEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** A job event's data. */
export interface JobEventData {
  id: string;
  status: string;
  queue: string;
  type: string;
  updatedAt: string;
  progress: { percent: number | null; data: Record<string, unknown> | null } | null;
}

/** An open SSE stream read by a test. */
export interface SseClient {
  status: number;
  headers: IncomingMessage['headers'];
  events: ReceivedEvent[];
  comments: string[];
  /** The job events so far, parsed. */
  jobs(): JobEventData[];
  /** Waits until a job event matches. */
  waitForJob(match: (e: JobEventData) => boolean, message?: string): Promise<JobEventData>;
  /** Whether the server ended the stream. */
  ended: boolean;
  /** Stops reading (the socket's receive buffer fills, then the server's). */
  pause(): void;
  close(): void;
  /** The body of a non-200 answer. */
  body: string;
}

/** Opens `url` as an event stream with `headers` (an API key, Last-Event-ID). */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        comments: [],
        ended: false,
        body: '',
        jobs: () => client.events.filter((e) => e.event === 'job').map((e) => JSON.parse(e.data) as JobEventData),
        waitForJob: (match, message = 'a matching job event') => waitFor(() => client.jobs().find(match), { message, timeoutMs: 15_000 }),
        pause: () => res.pause(),
        close: () => req.destroy(),
      };
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (client.status !== 200) {
          client.body += chunk;
          return;
        }
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const event: ReceivedEvent = { id: undefined, event: 'message', data: '' };
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              client.comments.push(line.slice(1).trim());
              continue;
            }
            if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) event.data += line.slice(6);
            else continue;
            isEvent = true;
          }
          if (isEvent) client.events.push(event);
        }
      });
      const end = () => (client.ended = true);
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
      resolve(client);
    });
    req.on('error', reject);
    req.end();
  });
}
