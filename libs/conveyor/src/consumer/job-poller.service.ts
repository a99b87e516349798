import { Inject, Injectable, Logger } from '@nestjs/common';
import { LivePublisher } from '../observation/live/live-publisher.service';
import { CLAIM_STRATEGY, CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { DatabaseClock } from '../storage/connections/database-clock.service';
import { claimedItems } from './claiming/claimed-items';
import { ClaimStrategy } from './claiming/claim-strategy.interface';
import { connectionErrorText, isConnectionError } from '../storage/connections/connection-errors';
import { DatabaseOutages } from '../storage/connections/database-outages.service';
import { ConveyorEvents } from '../observation/events/conveyor-events.service';
import { ClaimTrigger, ClaimWaker } from './claim-trigger';
import { PICKUP_HOOKS, PickupHooks } from './pickup-hooks';
import { WakeRules } from './wake-rules';
import { WorkerPool } from './worker-pool.service';

/**
 * How long after a claim that lost every round to claim again: long enough for the competitors' claims to end. It
 * must exceed CLOCK_SLACK_MS, or the retry would be claimed at once instead of by the due timer.
 */
const LOST_RACES_RETRY_MS = 25;

/**
 * The poller: claims jobs into the worker pool, asking each time for exactly the pool's free room.
 *
 * It is woken through the ClaimTrigger — by a NOTIFY, by this instance's own insert (the local pickup), by room
 * freeing up in the pool, by a job going back to waiting — and by its own timers: one armed for the earliest due
 * time it has heard of and not reached (then for the next), and a fallback interval (a plain timer: the engine
 * leaves @nestjs/schedule to the host app) for work nobody announced. Whether a wake-up claims is WakeRules'
 * decision. Wake-ups that arrive while a claim is in flight fold into one more round, so a burst of notifications
 * costs one query, not one each; a round that got all it asked for goes again at once while the pool has room.
 */
@Injectable()
export class JobPoller implements ClaimWaker {
  private readonly logger = new Logger('Conveyor:Poller');
  private running = false;
  private fetching = false;
  /** Woken while a claim was in flight: claim once more when it returns. */
  private again = false;
  private rules: WakeRules;
  private dueTimer: NodeJS.Timeout | null = null;
  private detach: (() => void) | null = null;
  private lastPoll: Date | null = null;
  private lastErrorMessage: string | null = null;
  /**
   * Claims that failed for want of the database since the last one that got through, and the reasons logged for
   * them. Each reason is logged once per run (a connection reset, then refused connections, then a server back
   * read-only): the poller retries every poll interval, and a line each time would flood the log for the whole outage.
   */
  private failedClaims = 0;
  private readonly loggedFailures = new Set<string>();
  private fallbackTimer: NodeJS.Timeout | null = null;
  /** performance.now() when the claim round in flight began; null between rounds. */
  private roundStartedAt: number | null = null;
  /** The claim round in flight; null between rounds. */
  private round: Promise<void> | null = null;

  constructor(
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    @Inject(CLAIM_STRATEGY) private readonly strategy: ClaimStrategy,
    private readonly pool: WorkerPool,
    private readonly events: ConveyorEvents,
    private readonly trigger: ClaimTrigger,
    @Inject(PICKUP_HOOKS) private readonly pickup: PickupHooks,
    private readonly live: LivePublisher,
    private readonly clock: DatabaseClock,
    private readonly outages: DatabaseOutages,
  ) {
    this.rules = new WakeRules(options.pollIntervalMs);
  }

  /** When a claim last succeeded (health: the poller is alive). */
  get lastPollAt(): Date | null {
    return this.lastPoll;
  }

  get lastError(): string | null {
    return this.lastErrorMessage;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** How long the claim round in flight has been going (liveness: the worker loop advances); 0 between rounds. */
  get roundInFlightMs(): number {
    return this.roundStartedAt === null ? 0 : performance.now() - this.roundStartedAt;
  }

  /** Starts claiming; resolves when the first round of claims has ended (jobs taken, none due, or a failure). */
  start(): Promise<void> {
    if (this.running) return Promise.resolve();
    this.running = true;
    this.rules = new WakeRules(this.options.pollIntervalMs);
    this.fallbackTimer = setInterval(() => this.fallbackTick(), this.options.pollIntervalMs);
    this.detach = this.trigger.attach(this);
    return this.claimRound();
  }

  /**
   * Stops claiming. Resolves once the claim round in flight, if any, has ended (it never rejects): the jobs that claim
   * took are in the pool by then, for it to hand back, since the database holds them RUNNING under this worker's lease.
   */
  stop(): Promise<void> {
    const inFlight = this.round ?? Promise.resolve();
    if (!this.running) return inFlight;
    this.running = false;
    if (this.fallbackTimer) clearInterval(this.fallbackTimer);
    this.fallbackTimer = null;
    this.detach?.();
    this.detach = null;
    this.pickup.noClaimComing();
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = null;
    return inFlight;
  }

  /** ClaimWaker. */
  capacityFreed(): void {
    if (this.rules.onCapacity(this.pool.wantsRefill())) this.wake();
  }

  /** ClaimWaker: claim now if `at` has come (within the clock slack), and arm the due timer if it has not. */
  jobsDueAt(at: number): void {
    if (!this.running) return;
    const now = this.clock.now();
    const { claimNow, timerAt } = this.rules.onDue(at, now, this.marginMs);
    if (claimNow) this.wake();
    if (timerAt !== null) this.armDueTimer(timerAt, now);
  }

  /**
   * Fires once due time `at` has certainly come by the database's clock as this host estimates it (DatabaseClock): a
   * millisecond after `at` plus the estimate's uncertainty. It claims, and arms itself for the next due time. Fired
   * sooner, a claim could reach the database before the job is due, find nothing, and leave it to the fallback poll.
   */
  private armDueTimer(at: number, now: number): void {
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = setTimeout(
      () => {
        this.dueTimer = null;
        const fired = this.clock.now();
        // The estimate's uncertainty as it is now: readings since the timer was armed may have changed it.
        const margin = this.marginMs;
        // A timer can fire a millisecond early by the clock (or early by the 2^31 ms cap, or as the estimate moved): it
        // waits on.
        if (fired <= at + margin) {
          this.armDueTimer(at, fired);
          return;
        }
        const next = this.rules.onTimer(fired - margin);
        this.wake();
        if (next !== null) this.armDueTimer(next, fired);
      },
      Math.min(at + this.marginMs - now + 1, 2 ** 31 - 1),
    );
  }

  /** How far, in whole ms, the clock estimate may be ahead of the database's clock (DatabaseClock.uncertaintyMs). */
  private get marginMs(): number {
    return Math.ceil(this.clock.uncertaintyMs);
  }

  /** ClaimWaker. */
  jobsDueNow(): void {
    if (!this.running) return;
    this.rules.onDueNow();
    this.wake();
  }

  /** ClaimWaker. */
  queriedDatabase(): void {
    this.rules.onOwnQuery();
  }

  private fallbackTick(): void {
    if (this.rules.onFallbackTick(Date.now())) this.wake();
  }

  /** Claim as much as the pool has room for; coalesces with a claim already in flight. */
  private wake(): void {
    if (!this.running) return;
    if (this.fetching) {
      this.again = true;
      return;
    }
    void this.claimRound();
  }

  /** Runs fetchLoop as the round in flight, which `stop` waits for. */
  private claimRound(): Promise<void> {
    const round = this.fetchLoop().finally(() => {
      if (this.round === round) this.round = null;
    });
    this.round = round;
    return round;
  }

  /**
   * Claims until the pool is full or the queue has nothing more for it; never rejects. `fetching` is set before
   * the first await, so a wake-up during the call folds into it.
   */
  private async fetchLoop(): Promise<void> {
    this.fetching = true;
    this.roundStartedAt = performance.now();
    try {
      let again: boolean;
      do {
        this.again = false;
        const filter = this.pool.claimRequest();
        if (!filter) {
          this.lastPoll = new Date();
          this.pickup.noClaimComing();
          break;
        }
        const claimNo = this.pickup.claimStarting();
        const claimSentAt = performance.now();
        const claim = await this.strategy.claim(filter, this.options.workerId, this.options.leaseMs);
        const { jobs } = claim;
        this.lastPoll = new Date();
        this.lastErrorMessage = null;
        if (this.failedClaims > 0) this.logger.log(`Claiming again, after ${this.failedClaims} failed claims`);
        this.failedClaims = 0;
        this.loggedFailures.clear();
        this.events.emit('claimed', jobs, filter.limit); // empty claims too: metrics count wasted polls
        this.pool.accept(jobs, claimSentAt);
        if (jobs.length > 0 && this.live.watching) this.live.announceItems(claimedItems(claim));
        this.pickup.claimReturned(claimNo, jobs);
        // Competitors took every row this claim read: more is likely waiting once their claims are done.
        if (this.rules.onLostRaces(claim.lostEveryRound)) this.jobsDueAt(this.clock.now() + LOST_RACES_RETRY_MS);
        const full = this.rules.onClaimed(
          {
            taken: jobs.length,
            asked: filter.limit,
            capped: this.pool.claimWasCapped,
            shortClaimsMayLeaveWork: this.strategy.shortClaimsMayLeaveWork,
          },
          this.lastPoll.getTime(),
        );
        again = this.running && this.rules.claimAgain(full, this.again, full ? this.pool.freeCapacity() : 0);
      } while (again);
    } catch (err) {
      this.pickup.noClaimComing();
      this.lastErrorMessage = (err as Error).message;
      if (isConnectionError(err)) {
        this.outages.seen();
        const reason = connectionErrorText(err);
        this.failedClaims++;
        if (!this.loggedFailures.has(reason)) {
          this.loggedFailures.add(reason);
          this.logger.warn(`Claim failed, database unavailable: ${reason}; retrying quietly until a claim gets through`);
        }
      } else this.logger.error(`Claim failed: ${(err as Error).stack ?? String(err)}`);
    } finally {
      this.fetching = false;
      this.roundStartedAt = null;
    }
  }
}
