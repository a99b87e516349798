import { Inject, Injectable, Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { CONVEYOR_OPTIONS, MAINTENANCE_INTERVAL_NAME } from '../conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ConveyorEvents } from '../events/conveyor-events.service';
import { LeaderElection } from './leader-election.service';
import { LeaseSweeper } from './lease-sweeper.service';
import { RetentionCleaner } from './retention-cleaner.service';

/**
 * Runs the maintenance duties (lease rescue, retention) on a SchedulerRegistry interval, on whichever
 * instance currently holds leadership; the others only try to become leader.
 */
@Injectable()
export class MaintenanceService {
  private readonly logger = new Logger('Conveyor:Maintenance');
  private ticking: Promise<void> | null = null;

  constructor(
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    private readonly schedulerRegistry: SchedulerRegistry,
    private readonly leader: LeaderElection,
    private readonly sweeper: LeaseSweeper,
    private readonly retention: RetentionCleaner,
    private readonly events: ConveyorEvents,
  ) {}

  start(): void {
    if (this.schedulerRegistry.doesExist('interval', MAINTENANCE_INTERVAL_NAME)) return;
    this.schedulerRegistry.addInterval(MAINTENANCE_INTERVAL_NAME, setInterval(() => void this.tick(), this.options.maintenanceIntervalMs));
    void this.tick();
  }

  async stop(): Promise<void> {
    if (this.schedulerRegistry.doesExist('interval', MAINTENANCE_INTERVAL_NAME)) {
      this.schedulerRegistry.deleteInterval(MAINTENANCE_INTERVAL_NAME);
    }
    await this.ticking;
    await this.leader.release();
  }

  /** One round; concurrent calls share it. */
  tick(): Promise<void> {
    this.ticking ??= this.run().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async run(): Promise<void> {
    const term = await this.leader.acquire();
    if (!term) return;
    try {
      await this.sweeper.sweep(term);
      await this.retention.clean(term);
      this.events.emit('maintained');
    } catch (err) {
      this.logger.warn(`Maintenance round failed: ${(err as Error).message}`);
    }
  }
}
