import { Inject, Injectable, Logger } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { connectionErrorText, isConnectionError } from '../storage/connections/connection-errors';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { DatabaseOutages } from '../storage/connections/database-outages.service';
import { ExtendedLeaseRow, jobExtendLeases } from '../storage/statements/job-extend-leases.sql';
import { run } from '../storage/statements/statement';
import { WorkerPool } from './worker-pool.service';

/**
 * Heartbeat for every claim this process holds: one statement per interval extends all leases.
 * A held job the statement does not return was rescued by the sweeper (our lease had expired) and may
 * already be running elsewhere, so the pool aborts it and will write nothing for it (fencing). A job whose row
 * another transaction held (its own outcome write, say) is passed by: its lease stays as it was until a later
 * round. When heartbeats fail or hang (the database unreachable), the pool drops the jobs whose leases may have
 * lapsed by this process's clock, by a timer of its own.
 */
@Injectable()
export class LeaseKeeper {
  private readonly logger = new Logger('Conveyor:LeaseKeeper');
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;

  constructor(
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    private readonly db: ConveyorDatabase,
    private readonly pool: WorkerPool,
    private readonly outages: DatabaseOutages,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.beat(), this.options.heartbeatIntervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
  }

  /** One heartbeat round (also callable from tests). */
  beat(): Promise<void> {
    this.beating ??= this.extend().finally(() => (this.beating = null));
    return this.beating;
  }

  private async extend(): Promise<void> {
    const held = this.pool.heldLeases();
    if (held.length === 0) return;
    const sentAt = performance.now();
    try {
      const { rows } = await run<ExtendedLeaseRow>(this.db.pool, jobExtendLeases(this.db.tables, held, this.options.leaseMs));
      const answered = new Map(rows.map((r) => [r.id, r.extended]));
      this.pool.leasesExtended(
        held.filter((h) => answered.get(h.id) === true),
        sentAt,
      );
      const lost = held.filter((h) => !answered.has(h.id));
      if (lost.length > 0) this.pool.markLost(lost);
    } catch (err) {
      if (isConnectionError(err)) this.outages.seen();
      this.logger.warn(`Heartbeat failed: ${connectionErrorText(err)}`);
      this.pool.dropLapsedLeases();
    }
  }
}
