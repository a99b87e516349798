import { Inject, Injectable, Logger } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../../config/conveyor.constants';
import { ConveyorOptions } from '../../config/conveyor-options.interface';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { liveWatchRelease, liveWatchRenew } from '../../storage/statements/live-watch-renew.sql';
import { run } from '../../storage/statements/statement';
import { LiveWatchDetector, WATCH_REFRESH_MS } from '../live/live-watch-detector.service';

/** How long a lease lasts past its last renewal. */
const LEASE_MS = 15_000;
/** How often a held lease is renewed. */
const RENEW_EVERY_MS = 5_000;
/**
 * How long after a lease is first taken every writer surely sees it: a listening writer hears the lease's notice at
 * once, one that does not listen checks every WATCH_REFRESH_MS, and its check may take a moment.
 */
export const WATCH_VISIBLE_AFTER_MS = WATCH_REFRESH_MS * 2 + 500;

/**
 * This instance's live-watch lease, held while it has at least one subscriber: taken by the first, renewed every
 * RENEW_EVERY_MS, given up when the last one leaves. `since` says when the current unbroken lease began (the
 * database's clock, in µs) and whether writers may not have seen it yet.
 */
@Injectable()
export class LiveWatchLease {
  private readonly logger = new Logger('Conveyor:Live');
  private readonly holder: string;
  private holders = 0;
  private timer: NodeJS.Timeout | null = null;
  private startedUs: string | null = null;
  private startedAt = 0;

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly detector: LiveWatchDetector,
    @Inject(CONVEYOR_OPTIONS) options: ConveyorOptions,
  ) {
    this.holder = options.workerId;
  }

  /**
   * Holds the lease for one more subscriber. Answers when the lease began (µs, database clock) if writers may
   * still be unaware of it (then the subscriber must catch up from then once they are, after `visibleInMs`), or null.
   * Rejects when the lease cannot be written (the database is away); the caller then holds nothing.
   */
  async acquire(): Promise<{ sinceUs: string; visibleInMs: number } | null> {
    this.holders++;
    if (this.startedUs === null) {
      let nowUs: string;
      try {
        nowUs = await this.renew();
      } catch (err) {
        // Not a holder: it will never call release(), and a count left too high would hold the lease for good.
        this.holders--;
        throw err;
      }
      this.startedUs ??= nowUs;
      this.startedAt = Date.now();
      this.timer ??= setInterval(() => void this.renew().catch(() => undefined), RENEW_EVERY_MS);
      this.timer.unref();
      void this.detector.check();
    }
    const visibleInMs = this.startedAt + WATCH_VISIBLE_AFTER_MS - Date.now();
    return visibleInMs > 0 && this.startedUs !== null ? { sinceUs: this.startedUs, visibleInMs } : null;
  }

  /** When the lease held now began (µs since the epoch, database clock), or null while none is. */
  get sinceUs(): string | null {
    return this.startedUs;
  }

  /** One subscriber fewer; the last one gives up the lease. */
  release(): void {
    this.holders = Math.max(0, this.holders - 1);
    if (this.holders > 0) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.startedUs = null;
    run(this.db.pool, liveWatchRelease(this.db.tables, this.holder)).catch((err: unknown) =>
      this.logger.debug(`Could not release the live-watch lease: ${(err as Error).message}`),
    );
  }

  private async renew(): Promise<string> {
    const { rows } = await run<{ now_us: string }>(this.db.pool, liveWatchRenew(this.db.tables, this.holder, LEASE_MS, this.db.channel));
    return rows[0].now_us;
  }
}
