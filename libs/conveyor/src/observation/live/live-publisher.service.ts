import { Injectable, Logger } from '@nestjs/common';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { SqlRunner } from '../../storage/connections/sql-runner.interface';
import { AnnouncedChange, liveChangesNotify } from '../../storage/statements/live-changes-notify.sql';
import { run } from '../../storage/statements/statement';
import { LiveWatchDetector } from './live-watch-detector.service';

/** Most changes one notify statement carries. */
const MAX_PER_STATEMENT = 1000;

/**
 * What the engine's writers call after a write that changed jobs (insert, claim, outcome, cancel, retry, rescue,
 * purge, progress). While nobody watches (LiveWatchDetector) it does nothing at all, so the writes themselves never
 * change and never carry a NOTIFY. While someone does, the changes are announced by one statement of their own
 * (liveChangesNotify) after the write:
 * - `announce`: a write on the pool, already committed. The changes of every writer of this instance are gathered
 *   and sent together, one statement in flight at a time, so the writer never waits and the hot path adds no round
 *   trip; the announcements of this instance leave in the order they were made.
 * - `announceIn`: a write in a transaction not yet committed (a caller's, the cron timekeeper's): announced in the
 *   same transaction, so the notification is delivered if and only if the write commits.
 * A change lost here (the announcement failed, the process died right after its write) is not retried: a
 * subscriber that resumes catches up from the table (LiveFeed).
 */
@Injectable()
export class LivePublisher {
  private readonly logger = new Logger('Conveyor:Live');
  private pending: AnnouncedChange[] = [];
  private sending = false;

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly detector: LiveWatchDetector,
  ) {}

  /** Whether changes are being announced: writers check it before building what they would announce. */
  get watching(): boolean {
    return this.detector.watched;
  }

  /** Announces changes that a committed write on the pool made; never waits, never throws. */
  announce(changes: AnnouncedChange[]): void {
    if (!this.detector.watched || changes.length === 0) return;
    for (const change of changes) this.pending.push(change);
    if (!this.sending) {
      this.sending = true;
      setImmediate(() => void this.send());
    }
  }

  /** Announces changes in the transaction that made them (`runner`); the pool's writes go through `announce`. */
  async announceIn(runner: SqlRunner, changes: AnnouncedChange[]): Promise<void> {
    if (runner === this.db.pool) return this.announce(changes);
    if (!this.detector.watched || changes.length === 0) return;
    for (let i = 0; i < changes.length; i += MAX_PER_STATEMENT) {
      await run(runner, liveChangesNotify(this.db.tables, this.db.liveChannel, changes.slice(i, i + MAX_PER_STATEMENT)));
    }
  }

  private async send(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_PER_STATEMENT);
      try {
        await run(this.db.pool, liveChangesNotify(this.db.tables, this.db.liveChannel, batch));
      } catch (err) {
        this.logger.warn(`Could not announce ${batch.length} job changes to live subscribers: ${(err as Error).message}`);
      }
    }
    this.sending = false;
  }
}
