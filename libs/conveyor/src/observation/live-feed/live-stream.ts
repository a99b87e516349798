import type { ServerResponse } from 'node:http';
import { LiveEvent } from '../live/live-event';

/** Bounds of one stream. */
export interface LiveStreamLimits {
  maxBufferBytes: number;
  pingIntervalMs: number;
}

/** What a stream tells its owner. */
export interface LiveStreamHooks {
  /** The stream ended, for whatever reason (client gone, dropped, server closing); called once. */
  closed(): void;
  /** The reader fell more than `maxBufferBytes` behind and was dropped. */
  dropped(): void;
  /** An event was written. */
  sent(): void;
}

/**
 * One server-sent-events response. Events are written straight to the socket; what the client has not read yet
 * waits in Node's write buffer, and once that holds more than `maxBufferBytes` the reader is dropped (the
 * connection closed) rather than buffered without limit: an EventSource reconnects on its own and resumes from the
 * last event id it read. An idle stream sends a `: ping` comment every `pingIntervalMs`.
 */
export class LiveStream {
  private readonly ping: NodeJS.Timeout;
  private done = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly limits: LiveStreamLimits,
    private readonly hooks: LiveStreamHooks,
  ) {
    this.ping = setInterval(() => this.write(': ping\n\n'), limits.pingIntervalMs);
    this.ping.unref();
    res.on('close', () => this.finish());
    res.on('error', () => this.finish());
  }

  /** Sends the headers and a first comment, so the client sees the stream open at once. */
  open(headers: Record<string, string | number | string[]>): void {
    this.res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // nginx and others buffer a proxied response unless told not to.
      'X-Accel-Buffering': 'no',
    });
    this.write(': connected\nretry: 2000\n\n');
  }

  get isOpen(): boolean {
    return !this.done;
  }

  /** Writes one `event: job`; drops the reader when it is too far behind. */
  send(event: LiveEvent): void {
    if (this.write(`id: ${event.eventId}\nevent: job\ndata: ${JSON.stringify(event.job)}\n\n`)) this.hooks.sent();
  }

  /** Ends the stream cleanly (server shutting down). */
  end(): void {
    if (this.done) return;
    this.res.end();
    this.finish();
  }

  private write(text: string): boolean {
    if (this.done) return false;
    if (this.res.writableLength > this.limits.maxBufferBytes) {
      this.hooks.dropped();
      this.res.destroy();
      this.finish();
      return false;
    }
    this.res.write(text);
    return true;
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    clearInterval(this.ping);
    this.hooks.closed();
  }
}
