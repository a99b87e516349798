import { Inject, Injectable, Logger } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ClaimTrigger } from '../consumer/claim-trigger';
import { OUTCOME_RETRY_MAX_MS } from '../consumer/completer.service';
import { MESSAGES } from '../errors/conveyor.messages';
import { isConnectionError } from '../storage/connections/connection-errors';
import { DatabaseOutages } from '../storage/connections/database-outages.service';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { DatabaseClock } from '../storage/connections/database-clock.service';
import { RescuedRow } from '../storage/statements/job-rescue-expired.sql';
import { maintenanceRound, MaintenanceRoundRow } from '../storage/statements/maintenance-round.sql';
import { run } from '../storage/statements/statement';
import { InstanceRegistry } from './instance-registry.service';
import { LeaderElection, LeadershipAttempt } from './leader-election.service';
import { LeaseSweeper, RESCUE_BATCH } from './lease-sweeper.service';
import { RescueHold } from './rescue-hold';
import { RetentionCleaner } from './retention-cleaner.service';

/**
 * How long after its first round through an outage the leader leaves expired leases alone (RescueHold): long enough for
 * every completer that waited through the outage to try again at its longest pause, and for that write to land.
 */
export const RESCUE_HOLD_MS = 2 * OUTCOME_RETRY_MAX_MS;

/**
 * Runs the maintenance duties (lease rescue, retention, pruning dead instances' rows) on an interval, on whichever
 * instance currently holds leadership; the others only try to become leader. Every instance also writes its own
 * heartbeat to the instance registry each round. A round is one statement (maintenance-round.sql.ts) unless the
 * leader has more to do: more expired leases than one batch, or retention's turn; when the leader's duties in that
 * statement fail, the claim and the heartbeat go again without them. A plain timer: the engine leaves
 * @nestjs/schedule (and its global explorer of @Cron/@Interval methods) to the host app.
 */
@Injectable()
export class MaintenanceService {
  private readonly logger = new Logger('Conveyor:Maintenance');
  private ticking: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly hold = new RescueHold(RESCUE_HOLD_MS);
  /** performance.now() when the last round that got through was sent. */
  private lastThroughAt = -Infinity;

  constructor(
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    private readonly leader: LeaderElection,
    private readonly sweeper: LeaseSweeper,
    private readonly retention: RetentionCleaner,
    private readonly trigger: ClaimTrigger,
    private readonly instances: InstanceRegistry,
    private readonly db: ConveyorDatabase,
    private readonly clock: DatabaseClock,
    private readonly outages: DatabaseOutages,
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
    const attempt = this.leader.attempt();
    let rows: MaintenanceRoundRow[];
    // Right after an outage the leader's duties wait (RescueHold): the round only claims and heartbeats.
    const sentAtNow = performance.now();
    const duties = this.hold.dutiesNow(sentAtNow, this.outages.seenSince(this.lastThroughAt));
    let dutiesDone = duties;
    let sentAt = Date.now();
    try {
      rows = await this.sendRound(attempt, duties);
    } catch (err) {
      if (isConnectionError(err)) return this.roundFailed(attempt, err as Error);
      // The leader's duties failed, and took the claim and the heartbeat with them (one statement): those two must
      // not depend on a rescue or a pruning, so they go again alone, and the rescue again in its own statement below.
      this.logger.warn(`Maintenance round failed: ${(err as Error).message}; claiming and heartbeating alone`);
      dutiesDone = false;
      try {
        sentAt = Date.now();
        rows = await this.sendRound(attempt, false);
      } catch (again) {
        return this.roundFailed(attempt, again as Error);
      }
    }
    this.lastThroughAt = sentAtNow;
    if (duties) this.hold.dutiesDone();
    this.instances.written();
    this.clock.read(rows[0].clock_ms, sentAt, Date.now());
    // This instance just talked to the database: its poller may skip a fallback tick.
    this.trigger.queriedDatabase();
    const term = this.leader.settle(attempt, rows[0].term ?? undefined);
    if (!term || !duties) return;
    try {
      const rescued = dutiesDone ? rows.filter((r): r is MaintenanceRoundRow & RescuedRow => r.id !== null) : undefined;
      await this.sweeper.sweep(term, rescued);
      await this.retention.clean(term);
    } catch (err) {
      this.logger.warn(`Maintenance round failed: ${(err as Error).message}`);
    }
  }

  private async sendRound(attempt: LeadershipAttempt, leaderDuties: boolean): Promise<MaintenanceRoundRow[]> {
    const round = maintenanceRound(this.db.tables, {
      holder: attempt.holder,
      heldTerm: attempt.heldTerm,
      leaseMs: attempt.leaseMs,
      instance: this.instances.report(),
      instanceLeaseMs: this.instances.leaseMs,
      leaderDuties,
      rescueLimit: RESCUE_BATCH,
      messagePrefix: MESSAGES.leaseExpiredPrefix,
    });
    return (await run<MaintenanceRoundRow>(this.db.pool, round)).rows;
  }

  private roundFailed(attempt: LeadershipAttempt, err: Error): void {
    this.outages.seen();
    this.hold.roundFailed();
    this.instances.failed(err);
    this.leader.failed(attempt, err);
  }
}
