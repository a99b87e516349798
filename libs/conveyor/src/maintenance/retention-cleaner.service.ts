import { Inject, Injectable } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { LivePublisher } from '../observation/live/live-publisher.service';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { jobDeleteCompleted } from '../storage/statements/job-delete-completed.sql';
import { LeaderTerm } from '../storage/statements/leadership.sql';
import { run } from '../storage/statements/statement';

/** Most batches one round deletes, so a large backlog is worked off without a long lock. */
const MAX_BATCHES_PER_TICK = 10;
/** Retention runs every this many maintenance ticks (at most once a minute): it has no deadline, and an idle leader should stay quiet. */
const RETENTION_EVERY_TICKS = 6;
const RETENTION_AT_MOST_EVERY_MS = 60_000;

/**
 * Deletes COMPLETED jobs older than `retentionCompletedMs`, in small batches, so the hot table stays
 * small, every sixth maintenance tick (once a minute by default). DEAD jobs are never
 * deleted here: they wait for a retry or an operator. Leader only. Each deletion is announced as a live `DELETED`
 * change, as an operator's purge is, so that a stream following the job ends.
 */
@Injectable()
export class RetentionCleaner {
  constructor(
    private readonly db: ConveyorDatabase,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    private readonly live: LivePublisher,
  ) {}

  private lastRun = 0;

  async clean(term: LeaderTerm): Promise<number> {
    if (this.options.retentionCompletedMs === 0) return 0;
    const every = Math.min(RETENTION_AT_MOST_EVERY_MS, this.options.maintenanceIntervalMs * RETENTION_EVERY_TICKS);
    if (Date.now() - this.lastRun < every) return 0;
    this.lastRun = Date.now();
    let total = 0;
    for (let i = 0; i < MAX_BATCHES_PER_TICK; i++) {
      const stmt = jobDeleteCompleted(this.db.tables, this.options.retentionCompletedMs, this.options.retentionBatchSize, term);
      const { rows } = await run<{ id: string; queue: string; type: string }>(this.db.pool, stmt);
      this.live.announceDeleted(rows);
      total += rows.length;
      if (rows.length < this.options.retentionBatchSize) return total;
    }
    // More is waiting: carry on at the next maintenance tick instead of a minute later.
    this.lastRun = 0;
    return total;
  }
}
