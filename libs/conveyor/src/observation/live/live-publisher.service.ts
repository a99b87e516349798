import { Injectable, Logger } from '@nestjs/common';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { SqlRunner } from '../../storage/connections/sql-runner.interface';
import { AnnouncedChange, liveChangesNotify } from '../../storage/statements/live-changes-notify.sql';
import { liveItemsNotify } from '../../storage/statements/live-items-notify.sql';
import { run, Statement } from '../../storage/statements/statement';
import { liveChunks } from './live-chunks';
import { DELETED, LiveItem } from './live-event';
import { LiveWatchDetector } from './live-watch-detector.service';

/** Most changes one notify statement carries. */
const MAX_PER_STATEMENT = 1000;

/** What waits to be announced: a change whose item is read from its row, or an item its writer knew in full. */
type Announcement = AnnouncedChange | LiveItem;

/**
 * What the engine's writers call after a write that changed jobs (insert, claim, outcome, cancel, retry, rescue,
 * purge, progress). While nobody watches (LiveWatchDetector) it does nothing at all, so the writes themselves never
 * change and never carry a NOTIFY. While someone does, the changes are announced by one statement of their own
 * after the write:
 * - `announce`: a write on the pool, already committed. The changes of every writer of this instance are gathered
 *   and sent together, one statement in flight at a time, so the writer never waits and the hot path adds no round
 *   trip; the announcements of this instance leave in the order they were made. The statement reads each changed
 *   row for the rest of its item (liveChangesNotify).
 * - `announceItems`: the same, for a writer that knows every field of its items (the claims of the poller and of
 *   HTTP workers, the Completer's outcomes of attempts that reported no progress): the statement only sends them
 *   (liveItemsNotify), reading no row. An item carries the time the write gave the row (`updated_at`), so its event
 *   id is the one a catch-up gives for the same state.
 * - `announceIn`: a write in a transaction not yet committed (a caller's, the cron timekeeper's): announced in the
 *   same transaction, so the notification is delivered if and only if the write commits.
 * A change lost here (the announcement failed, the process died right after its write) is not retried: a
 * subscriber that resumes catches up from the table (LiveFeed).
 */
@Injectable()
export class LivePublisher {
  private readonly logger = new Logger('Conveyor:Live');
  private pending: Announcement[] = [];
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
    this.enqueue(changes);
  }

  /** Announces jobs a committed write on the pool deleted: their rows are gone, so each change carries queue and type. */
  announceDeleted(jobs: readonly { id: string; queue: string; type: string }[]): void {
    this.enqueue(jobs.map((job) => ({ id: job.id, status: DELETED, queue: job.queue, type: job.type })));
  }

  /** Announces the items of a committed write whose writer knows them in full (see the class); never waits, never throws. */
  announceItems(items: LiveItem[]): void {
    this.enqueue(items);
  }

  /** Announces changes in the transaction that made them (`runner`); the pool's writes go through `announce`. */
  async announceIn(runner: SqlRunner, changes: AnnouncedChange[]): Promise<void> {
    if (runner === this.db.pool) return this.announce(changes);
    if (!this.detector.watched || changes.length === 0) return;
    for (let i = 0; i < changes.length; i += MAX_PER_STATEMENT) {
      await run(runner, liveChangesNotify(this.db.tables, this.db.liveChannel, changes.slice(i, i + MAX_PER_STATEMENT)));
    }
  }

  private enqueue(announcements: Announcement[]): void {
    if (!this.detector.watched || announcements.length === 0) return;
    for (const a of announcements) this.pending.push(a);
    if (!this.sending) {
      this.sending = true;
      setImmediate(() => void this.send());
    }
  }

  /** Sends what is pending, oldest first: each run of changes or of items as one statement of at most MAX_PER_STATEMENT. */
  private async send(): Promise<void> {
    while (this.pending.length > 0) {
      const items = Array.isArray(this.pending[0]);
      let n = 1;
      while (n < this.pending.length && n < MAX_PER_STATEMENT && Array.isArray(this.pending[n]) === items) n++;
      const batch = this.pending.splice(0, n);
      try {
        const statement: Statement = items
          ? liveItemsNotify(this.db.liveChannel, liveChunks(batch as LiveItem[]))
          : liveChangesNotify(this.db.tables, this.db.liveChannel, batch as AnnouncedChange[]);
        await run(this.db.pool, statement);
      } catch (err) {
        this.logger.warn(`Could not announce ${batch.length} job changes to live subscribers: ${(err as Error).message}`);
      }
    }
    this.sending = false;
  }
}
