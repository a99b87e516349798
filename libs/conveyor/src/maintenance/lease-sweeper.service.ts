import { Inject, Injectable, Logger } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../conveyor.constants';
import { MESSAGES } from '../conveyor.messages';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ConveyorDatabase } from '../database/conveyor-database.service';
import { SqlRunner } from '../database/sql-runner.interface';
import { ConveyorEvents } from '../events/conveyor-events.service';
import { jobRescueExpired } from '../sql/job-rescue-expired.sql';
import { jobsNotifyReady } from '../sql/jobs-notify-ready.sql';
import { run } from '../sql/statement';

const BATCH = 500;

/** Rescues jobs whose lease expired (their worker died or hung). Runs on the elected leader only. */
@Injectable()
export class LeaseSweeper {
  private readonly logger = new Logger('Conveyor:Sweeper');

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly events: ConveyorEvents,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
  ) {}

  /** Returns how many jobs were rescued. */
  async sweep(runner: SqlRunner): Promise<number> {
    let total = 0;
    for (;;) {
      const { rows } = await run<{ id: string; status: string }>(runner, jobRescueExpired(this.db.tables, BATCH, MESSAGES.leaseExpiredPrefix));
      total += rows.length;
      if (rows.length < BATCH) break;
    }
    if (total > 0) {
      await run(runner, jobsNotifyReady(this.db.channel));
      this.events.emit('rescued', total);
      this.logger.warn(`Rescued ${total} jobs whose lease expired (swept by ${this.options.workerId})`);
    }
    return total;
  }
}
