import { Inject, Injectable, Logger } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ClaimTrigger } from '../consumer/claim-trigger';
import { InstanceRegistry } from './instance-registry.service';
import { LeaderElection } from './leader-election.service';
import { LeaseSweeper } from './lease-sweeper.service';
import { RetentionCleaner } from './retention-cleaner.service';

/**
 * Runs the maintenance duties (lease rescue, retention, pruning dead instances' rows) on an interval, on whichever
 * instance currently holds leadership; the others only try to become leader. Every instance also writes its own
 * heartbeat to the instance registry each round. A plain timer: the engine leaves @nestjs/schedule (and its global
 * explorer of @Cron/@Interval methods) to the host app.
 */
@Injectable()
export class MaintenanceService {
  private readonly logger = new Logger('Conveyor:Maintenance');
  private ticking: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    private readonly leader: LeaderElection,
    private readonly sweeper: LeaseSweeper,
    private readonly retention: RetentionCleaner,
    private readonly trigger: ClaimTrigger,
    private readonly instances: InstanceRegistry,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.options.maintenanceIntervalMs);
    void this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    await this.leader.release();
    await this.instances.deregister();
  }

  /** One round; concurrent calls share it. */
  tick(): Promise<void> {
    this.ticking ??= this.run().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async run(): Promise<void> {
    // Side by side: the heartbeat must not delay the leadership's renewal.
    const [term] = await Promise.all([this.leader.acquire(), this.instances.heartbeat()]);
    if (!term) return;
    try {
      await this.sweeper.sweep(term);
      await this.retention.clean(term);
      await this.instances.pruneExpired(term);
      // This instance just talked to the database: its poller may skip the next fallback tick.
      this.trigger.maintenanceRan();
    } catch (err) {
      this.logger.warn(`Maintenance round failed: ${(err as Error).message}`);
    }
  }
}
