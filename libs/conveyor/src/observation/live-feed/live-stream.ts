import type { ServerResponse } from 'node:http';
import { LiveEvent } from '../live/live-event';

/** How long a stream may hold more than `maxBufferBytes` unsent before its reader counts as slow. */
export const SLOW_READER_GRACE_MS = 2000;
/** How many times `maxBufferBytes` a stream may hold unsent at any moment. */
const HARD_CAP_FACTOR = 4;

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
 * waits in Node's write buffer. A burst (a batch of a thousand jobs is a thousand events, written at once) may
 * overfill that buffer for a moment even for a reader that keeps up, so a reader is dropped (the connection
 * closed) when the buffer holds more than `maxBufferBytes` for SLOW_READER_GRACE_MS without draining, or more than
 * HARD_CAP_FACTOR times that at any moment: never buffered without limit. An EventSource reconnects on its own and
 * resumes from the last event id it read. A `: ping` comment goes out every `pingIntervalMs`.
 */
export class LiveStream {
  private readonly ping: NodeJS.Timeout;
  private slowTimer: NodeJS.Timeout | null = null;
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
    // A client may leave before the route gets here (while its job is looked up, say): 'close' has fired already,
    // and a stream that waited for it would hold its subscriber, the watch lease and this timer for good.
    if (res.destroyed) this.finish();
  }

  /** Sends the headers and a first comment, so the client sees the stream open at once. */
  open(headers: Record<string, string | number | string[]>): void {
    if (this.done) return;
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

  /**
   * Resolves once the client has read what was written (at once when nothing waits, or the stream ended): a
   * catch-up, which may send a thousand events, writes them at the reader's pace instead of all at once.
   */
  drained(): Promise<void> {
    if (this.done || !this.res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      // Whichever comes first takes the other listener away: a stream that lives for weeks waits many times.
      const settle = () => {
        this.res.off('drain', settle);
        this.res.off('close', settle);
        resolve();
      };
      this.res.once('drain', settle);
      this.res.once('close', settle);
    });
  }

  /** Ends the stream cleanly: the server is shutting down, or no watch lease could be taken for it. */
  end(): void {
    if (this.done) return;
    this.res.end();
    this.finish();
  }

  private write(text: string): boolean {
    if (this.done) return false;
    this.res.write(text);
    const unsent = this.res.writableLength;
    if (unsent > this.limits.maxBufferBytes * HARD_CAP_FACTOR) {
      this.drop();
    } else if (unsent > this.limits.maxBufferBytes && this.slowTimer === null) {
      this.slowTimer = setTimeout(() => this.drop(), SLOW_READER_GRACE_MS);
      // Over the limit, write() has answered false: 'drain' comes once the buffer is empty.
      this.res.once('drain', () => this.caughtUp());
    }
    return true;
  }

  private caughtUp(): void {
    if (this.slowTimer) clearTimeout(this.slowTimer);
    this.slowTimer = null;
  }

  private drop(): void {
    if (this.done) return;
    this.hooks.dropped();
    this.res.destroy();
    this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    clearInterval(this.ping);
    this.caughtUp();
    this.hooks.closed();
  }
}
