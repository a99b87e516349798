import type { ServerResponse } from 'node:http';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { isConnectionError } from '../../storage/connections/connection-errors';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { jobChangedSince, jobLiveState } from '../../storage/statements/job-changed-since.sql';
import { run } from '../../storage/statements/statement';
import { DELETED, LiveEvent, liveEventOf, LiveItem } from '../live/live-event';
import { LiveFilter, matchesFilter } from './live-filter';
import { LiveListener, LiveListenerSink } from './live-listener';
import { LiveMetrics } from './live-metrics';
import { LiveStream, LiveStreamLimits } from './live-stream';
import { LiveWatchLease } from './live-watch-lease.service';

/**
 * How far before a position a catch-up starts. A job's `updated_at` is its writing transaction's start, which may
 * come before an event already sent by the time that transaction commits; re-sending a few seconds of states is
 * harmless (events are states, and a subscriber keeps the latest `updatedAt` of each job).
 */
const CATCH_UP_MARGIN_US = 3_000_000n;
/** Most jobs one catch-up sends. */
const CATCH_UP_LIMIT = 1000;

/** One open stream and what it asked for. */
interface Subscriber {
  filter: LiveFilter;
  stream: LiveStream;
  /**
   * Where a catch-up after a lost LISTEN connection starts (µs): the latest event sent, or, before the first, where
   * the feed was when the subscriber took the lease. Null before either.
   */
  lastUs: bigint | null;
  /** Whether it counts among the holders of the watch lease (from `acquire` until it leaves). */
  holdsLease: boolean;
}

/**
 * Live events: every instance's job changes, streamed to this instance's subscribers.
 *
 * The protocol:
 * 1. **Watching.** An instance with at least one subscriber holds a live-watch lease, a row of
 *    `conveyor_live_watch` with an expiry (LiveWatchLease), renewed while it has subscribers and given up after the
 *    last one leaves (or left to expire when the instance dies). A subscriber that cannot take it (the database is
 *    away) has its stream ended at once, and counts for nothing: its client comes back with `Last-Event-ID`.
 * 2. **Publishing.** Every instance's writers ask a detector, not the database, whether any lease is current
 *    (LiveWatchDetector: told by the watch notice each lease renewal sends on the jobs channel, or, on an instance
 *    that does not listen, by a check every second). While none is, nothing is announced and no write
 *    changes. While one is, each write that changed jobs — insert, claim, outcome, cancel, retry, rescue, purge,
 *    progress — is followed by one `pg_notify` statement on the live channel (LivePublisher; the changes of one
 *    instance gathered into one statement at a time, chunked under PostgreSQL's 8000-byte payload limit). The
 *    writes themselves never carry a NOTIFY, so a claim or completion never takes the commit-time NOTIFY lock.
 * 3. **Fan-out.** A watching instance LISTENs on the live channel (LiveListener) and writes each item to the streams
 *    whose filter it matches (LiveStream: bounded, slow readers dropped).
 * 4. **Catch-up.** Writers see a new lease only after up to a couple of seconds (WATCH_VISIBLE_AFTER_MS). A
 *    subscriber that started the lease gets, once that time has passed, every matching job changed since the lease
 *    began (from the jobs table: `updated_at`), so changes made before writers noticed are not missed. A subscriber
 *    that resumes with `Last-Event-ID` gets every matching job changed since that event first; a per-job stream
 *    gets the job's current state first.
 *
 * Events are states, not diffs: a job's event says its status, queue, type, progress and `updatedAt` as the write
 * left them (claims, and outcomes of attempts that reported no progress: their writers know all of it) or as the
 * announcement read them (other changes). Two changes of a job close together may come as one event (its latest
 * state) or in either order from two instances; a subscriber keeps, per job, the event with the latest `updatedAt`.
 * A catch-up sends current states only, so a resumed subscriber sees where each job is now, not every step it took
 * meanwhile.
 * Event ids are `<updated_at in µs since the epoch>.<job id>`: the database's clock, so any instance can resume
 * from an id another one sent.
 */
@Injectable()
export class LiveFeed implements LiveListenerSink, OnModuleDestroy {
  private readonly logger = new Logger('Conveyor:Live');
  private readonly subscribers = new Set<Subscriber>();
  private listenerOn = false;
  /** The latest position (µs) heard on the LISTEN connection since it started, whatever the filters. */
  private heardUs: bigint | null = null;
  /**
   * The last catch-up read, queued or running. Reads run one at a time: each reads the jobs table, and a reconnected
   * LISTEN connection starts one per open stream at once, which would take every pooled connection from the engine.
   */
  private catchUpRead: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly lease: LiveWatchLease,
    private readonly listener: LiveListener,
    private readonly metrics: LiveMetrics,
  ) {}

  /** Whether this instance can serve live events (false behind a transaction pooler without `listenUrl`). */
  get available(): boolean {
    return this.listener.available;
  }

  /**
   * Streams matching events to `res` until the client leaves, it is dropped for reading too slowly, or the app
   * closes. `position` (from `Last-Event-ID`, µs) asks for a catch-up first; `headers` are the response's own.
   */
  async open(
    res: ServerResponse,
    headers: Record<string, string | number | string[]>,
    filter: LiveFilter,
    position: string | null,
    limits: LiveStreamLimits,
  ): Promise<void> {
    let subscriber: Subscriber | null = null;
    const stream = new LiveStream(res, limits, {
      closed: () => subscriber && this.leave(subscriber),
      dropped: () => this.metrics.slowReadersDropped.inc(),
      sent: () => this.metrics.eventsSent.inc(),
    });
    stream.open(headers);
    if (!stream.isOpen) return;
    subscriber = { filter, stream, lastUs: null, holdsLease: false };
    this.subscribers.add(subscriber);
    this.metrics.connections.inc();
    if (!this.listenerOn) {
      this.listenerOn = true;
      await this.listener.start(this);
    }
    let fresh: Awaited<ReturnType<LiveWatchLease['acquire']>>;
    try {
      fresh = await this.lease.acquire();
    } catch (err) {
      // Without a lease no writer announces to this stream: end it, and the client comes back with Last-Event-ID.
      if (!isConnectionError(err)) this.logger.warn(`Live stream: could not take the watch lease: ${(err as Error).message}`);
      return stream.end();
    }
    subscriber.holdsLease = true;
    // Changes heard from now on reach it; with no event of its own yet, a lost LISTEN connection is caught up from here.
    subscriber.lastUs = this.heardUs ?? (this.lease.sinceUs === null ? null : BigInt(this.lease.sinceUs));
    // The client may have left while the lease was being taken: leave() found nothing to give back then.
    if (!stream.isOpen) return this.releaseLease(subscriber);
    if (filter.id !== undefined) await this.sendCurrent(subscriber, filter.id);
    else if (position !== null) await this.catchUp(subscriber, BigInt(position) - CATCH_UP_MARGIN_US);
    if (fresh) {
      const sub = subscriber;
      setTimeout(() => void this.catchUp(sub, BigInt(fresh.sinceUs) - CATCH_UP_MARGIN_US), fresh.visibleInMs).unref();
    }
  }

  /** One notification's items, to every stream they match. */
  items(items: LiveItem[]): void {
    for (const item of items) {
      const event = liveEventOf(item);
      const at = BigInt(event.atUs);
      if (this.heardUs === null || at > this.heardUs) this.heardUs = at;
      for (const sub of this.subscribers) if (matchesFilter(sub.filter, event.job)) this.send(sub, event);
    }
  }

  /**
   * The LISTEN connection is (back) in place: every stream with a position catches up on what a lost connection
   * missed (one still taking the lease gets its position after this, from the feed's).
   */
  listening(): void {
    for (const sub of this.subscribers) {
      if (sub.lastUs !== null) void this.catchUp(sub, sub.lastUs - CATCH_UP_MARGIN_US);
    }
  }

  /** Ends every stream, so the HTTP server can close. */
  async onModuleDestroy(): Promise<void> {
    for (const sub of [...this.subscribers]) sub.stream.end();
    await this.listener.stop();
  }

  private send(sub: Subscriber, event: LiveEvent): void {
    sub.stream.send(event);
    const at = BigInt(event.atUs);
    if (sub.lastUs === null || at > sub.lastUs) sub.lastUs = at;
    // A job's own stream has nothing more to say once the job is gone; the client's next request answers 404.
    if (sub.filter.id !== undefined && event.job.status === DELETED) sub.stream.end();
  }

  private async sendCurrent(sub: Subscriber, id: string): Promise<void> {
    try {
      const { rows } = await run<Record<string, unknown>>(this.db.pool, jobLiveState(this.db.tables, id));
      for (const row of rows) this.send(sub, liveEventOf(itemOf(row)));
      // Deleted after the route found it, before its DELETED could reach this stream: nothing more will come.
      if (rows.length === 0) sub.stream.end();
    } catch (err) {
      this.logger.warn(`Live stream: could not read job ${id}: ${(err as Error).message}`);
    }
  }

  private async endIfGone(sub: Subscriber, id: string): Promise<void> {
    const { rows } = await run(this.db.pool, jobLiveState(this.db.tables, id));
    if (rows.length === 0) sub.stream.end();
  }

  private async catchUp(sub: Subscriber, sinceUs: bigint): Promise<void> {
    if (!sub.stream.isOpen) return;
    try {
      const stmt = jobChangedSince(this.db.tables, { ...sub.filter, sinceUs: String(sinceUs < 0n ? 0n : sinceUs), limit: CATCH_UP_LIMIT });
      // A stream that ended while its read waited its turn reads nothing.
      const read = this.catchUpRead.then(async () =>
        sub.stream.isOpen ? (await run<Record<string, unknown>>(this.db.pool, stmt)).rows : [],
      );
      this.catchUpRead = read.catch(() => undefined);
      const rows = await read;
      for (const row of rows) {
        await sub.stream.drained();
        if (!sub.stream.isOpen) return;
        this.send(sub, liveEventOf(itemOf(row)));
      }
      // A job deleted while the LISTEN connection was down has no row to catch up from, and its DELETED went unheard.
      if (sub.filter.id !== undefined && rows.length === 0) await this.endIfGone(sub, sub.filter.id);
    } catch (err) {
      this.logger.warn(`Live stream: catch-up failed: ${(err as Error).message}`);
    }
  }

  private releaseLease(sub: Subscriber): void {
    if (!sub.holdsLease) return;
    sub.holdsLease = false;
    this.lease.release();
  }

  private leave(sub: Subscriber): void {
    if (!this.subscribers.delete(sub)) return;
    this.metrics.connections.dec();
    this.releaseLease(sub);
    if (this.subscribers.size === 0 && this.listenerOn) {
      this.listenerOn = false;
      this.heardUs = null;
      void this.listener.stop();
    }
  }
}

/** A row of jobChangedSince / jobLiveState as a live item. */
function itemOf(row: Record<string, unknown>): LiveItem {
  return [
    row.id as string,
    row.status as string,
    row.queue as string,
    row.type as string,
    row.at_us as string,
    (row.progress as LiveItem[5]) ?? null,
  ];
}
