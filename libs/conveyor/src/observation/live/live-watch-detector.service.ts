import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { liveWatchCheck } from '../../storage/statements/live-watch-renew.sql';
import { run } from '../../storage/statements/statement';

/** How often a writer asks whether anyone watches; a new subscriber's catch-up covers this long and more. */
export const WATCH_REFRESH_MS = 1000;

/**
 * Tells writers, without a query on their path, whether any instance serves live subscribers: a background check
 * of the live-watch leases every WATCH_REFRESH_MS keeps `watched` at most that stale (plus one round trip). A
 * failed check keeps the last answer. See LiveFeed for the whole protocol.
 */
@Injectable()
export class LiveWatchDetector implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Conveyor:Live');
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  /** Whether some live-watch lease was current at the last check. */
  watched = false;

  constructor(private readonly db: ConveyorDatabase) {}

  onApplicationBootstrap(): void {
    void this.check();
    this.timer = setInterval(() => void this.check(), WATCH_REFRESH_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Asks now (an instance that just took a lease knows before its timer says so). */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const { rows } = await run<{ watched: boolean }>(this.db.pool, liveWatchCheck(this.db.tables));
      this.watched = rows[0]?.watched === true;
    } catch (err) {
      this.logger.debug(`Live-watch check failed: ${(err as Error).message}`);
    } finally {
      this.checking = false;
    }
  }
}
