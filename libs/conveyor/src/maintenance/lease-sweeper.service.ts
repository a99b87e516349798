import { Inject, Injectable, Logger } from '@nestjs/common';
import { LivePublisher } from '../observation/live/live-publisher.service';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { MESSAGES } from '../errors/conveyor.messages';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { ConveyorEvents } from '../observation/events/conveyor-events.service';
import { jobLog } from '../observation/logging/job-log-fields';
import { LogRecord } from '../observation/logging/log-record';
import { jobRescueExpired, RescuedRow } from '../storage/statements/job-rescue-expired.sql';
import { jobsNotifyReady } from '../storage/statements/jobs-notify-ready.sql';
import { JobStatus } from '../job/job-status';
import { LeaderTerm } from '../storage/statements/leadership.sql';
import { run } from '../storage/statements/statement';

/** Most jobs one rescue statement returns to waiting; more are rescued by the next statement at once. */
export const RESCUE_BATCH = 500;

/** Rescues jobs whose lease expired (their worker died or hung). Runs on the elected leader only. */
@Injectable()
export class LeaseSweeper {
  private readonly logger = new Logger('Conveyor:Sweeper');

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly events: ConveyorEvents,
    private readonly live: LivePublisher,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
  ) {}

  /**
   * Rescues what has expired, as long as `term` leads; returns how many jobs were rescued. `firstBatch`: what the
   * maintenance round's statement rescued already (MaintenanceService), carried on from when it came back full.
   */
  async sweep(term: LeaderTerm, firstBatch?: RescuedRow[]): Promise<number> {
    let total = 0;
    let rows = firstBatch ?? (await this.rescueBatch(term));
    for (;;) {
      total += rows.length;
      // Each batch is counted as it commits: a later one that fails must not take the count of this one with it.
      if (rows.length > 0)
        this.events.emit(
          'rescued',
          rows.length,
          rows.filter((r) => r.status === JobStatus.DEAD),
        );
      this.live.announce(rows.map((r) => ({ id: r.id, status: r.status })));
      for (const r of rows) {
        const job = { id: r.id, type: r.type, attempts: r.attempts };
        const fields = { queue: r.queue, status: r.status, sweptBy: this.options.workerId };
        this.logger.warn(jobLog('Rescued a job whose lease expired', job, r.lost_by ?? 'unknown', fields));
      }
      if (rows.length < RESCUE_BATCH) break;
      rows = await this.rescueBatch(term);
    }
    if (total > 0) {
      await run(this.db.pool, jobsNotifyReady(this.db.channel));
      this.logger.log(new LogRecord('Rescued jobs whose lease expired', { count: total, sweptBy: this.options.workerId }));
    }
    return total;
  }

  private async rescueBatch(term: LeaderTerm): Promise<RescuedRow[]> {
    const stmt = jobRescueExpired(this.db.tables, RESCUE_BATCH, MESSAGES.leaseExpiredPrefix, term);
    return (await run<RescuedRow>(this.db.pool, stmt)).rows;
  }
}
