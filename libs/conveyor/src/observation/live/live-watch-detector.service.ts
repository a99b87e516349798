import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { liveWatchCheck } from '../../storage/statements/live-watch-renew.sql';
import { run } from '../../storage/statements/statement';

/** How often a writer that hears no notices asks whether anyone watches; a new subscriber's catch-up covers this. */
export const WATCH_REFRESH_MS = 1000;

/**
 * Tells writers, without a query on their path, whether any instance serves live subscribers. An instance that
 * takes or renews a live-watch lease sends a watch notice on the jobs channel; an instance whose NotificationListener
 * hears it (`noticed`) knows for the lease's length that someone watches, and asks the database nothing while nobody
 * does. One that does not listen (no LISTEN connection, workers off, or it is reconnecting) checks the leases every
 * WATCH_REFRESH_MS instead, and so does a listening one while its last check found a lease (until that lease is
 * gone), so `watched` is at most that stale (plus one round trip). A failed check keeps the last answer. See
 * LiveFeed for the whole protocol.
 */
@Injectable()
export class LiveWatchDetector implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Conveyor:Live');
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  private listening = false;
  /** Whether some live-watch lease was current at the last check. */
  private checkedWatched = false;
  /** Until when (Date.now()) the last watch notice says someone watches. */
  private noticedUntil = 0;

  constructor(private readonly db: ConveyorDatabase) {}

  /** Whether some instance serves live subscribers, as far as this one knows. */
  get watched(): boolean {
    return this.checkedWatched || Date.now() < this.noticedUntil;
  }

  onApplicationBootstrap(): void {
    void this.check();
    this.timer = setInterval(() => {
      if (!this.listening || this.checkedWatched) void this.check();
    }, WATCH_REFRESH_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** A watch notice was heard: some instance holds a lease for `leaseMs` from about now. */
  noticed(leaseMs: number): void {
    this.noticedUntil = Math.max(this.noticedUntil, Date.now() + leaseMs);
  }

  /**
   * Whether this instance hears the jobs channel. On (again), notices sent while it did not were lost, so it checks
   * once; off, it checks on its timer.
   */
  setListening(on: boolean): void {
    this.listening = on;
    if (on) void this.check();
  }

  /** Asks now (an instance that just took a lease knows before its timer says so). */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const { rows } = await run<{ watched: boolean }>(this.db.pool, liveWatchCheck(this.db.tables));
      this.checkedWatched = rows[0]?.watched === true;
    } catch (err) {
      this.logger.debug(`Live-watch check failed: ${(err as Error).message}`);
    } finally {
      this.checking = false;
    }
  }
}
