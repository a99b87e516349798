import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLAIM_STRATEGY, CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ClaimStrategy } from './claiming/claim-strategy.interface';
import { isConnectionError } from '../storage/connections/connection-errors';
import { ConveyorEvents } from '../observation/events/conveyor-events.service';
import { CommittedInsert } from '../submission/insert-jobs';
import { NewJobRow } from '../storage/statements/job-insert-many.sql';
import { WorkerPool } from './worker-pool.service';
import { LocalPickup, LocalTaker } from './local-pickup/local-pickup.service';
import { OwnInsertNotices } from './local-pickup/own-insert-notices';
import { UnclaimedOwnInserts } from './local-pickup/unclaimed-own-inserts';

/** Due times closer than this are treated as due now (clock skew between this host and the database). */
const CLOCK_SLACK_MS = 20;

/**
 * The producer: claims jobs into the worker pool.
 *
 * It is woken (1) by a NOTIFY from the insert trigger, or sooner by this instance's own committed insert
 * (the pair wakes it once: OwnInsertNotices), or, for a submission of its own it can take at once, right as
 * the insert is sent (LocalPickup), (2) by a timer armed for the earliest future run_at it has heard of,
 * (3) when the pool has drained its buffer after a full claim (more work is likely waiting), and (4) by a
 * fallback interval (a plain timer: the engine leaves @nestjs/schedule to the host app).
 * Wake-ups that arrive while a claim is in flight are folded into one more round, so a burst of
 * notifications costs one query, not one each. Each round asks for exactly the pool's free room and
 * goes again at once when it got all it asked for.
 *
 * The fallback interval only catches work nobody announced (a retry another instance scheduled, a lost
 * notification), so a tick is skipped when this instance already talked to the database since the last
 * one — a claim in the last half interval, or the leader's maintenance round: an idle instance makes at
 * most one query per poll interval, and unannounced work waits at most one interval longer.
 */
@Injectable()
export class JobPoller implements LocalTaker {
  private readonly logger = new Logger('Conveyor:Poller');
  private running = false;
  private fetching = false;
  private again = false;
  /** The last claim came back full, so more work is probably waiting. */
  private moreLikely = true;
  private dueTimer: NodeJS.Timeout | null = null;
  private dueAt = Infinity;
  private unsubscribe: (() => void)[] = [];
  private lastPoll: Date | null = null;
  /** When the last claim returned, epoch ms. */
  private lastClaimAt = 0;
  /** The leader's maintenance round queried the database since the last fallback tick. */
  private maintainedSinceTick = false;
  private lastErrorMessage: string | null = null;
  /** This instance's inserts and their notifications, paired so each insert wakes the poller once. */
  readonly ownInserts = new OwnInsertNotices();
  /** Jobs of this instance's quiet inserts not claimed yet. */
  private readonly unclaimed = new UnclaimedOwnInserts();
  private detachPickup: (() => void) | null = null;
  private fallbackTimer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
    @Inject(CLAIM_STRATEGY) private readonly strategy: ClaimStrategy,
    private readonly pool: WorkerPool,
    private readonly events: ConveyorEvents,
    private readonly pickup: LocalPickup,
  ) {}

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

  /** Starts claiming; resolves when the first round of claims has ended (jobs taken, none due, or a failure). */
  start(): Promise<void> {
    if (this.running) return Promise.resolve();
    this.running = true;
    this.fallbackTimer = setInterval(() => this.fallbackPoll(), this.options.pollIntervalMs);
    this.unsubscribe = [
      this.events.on('maintained', () => (this.maintainedSinceTick = true)),
      this.events.on('capacity', () => {
        if (this.moreLikely && this.pool.wantsRefill()) this.wake();
      }),
      this.events.on('requeued', (at) => this.wakeAt(at)),
      this.events.on('inserted', (insert) => this.onInsertCommitted(insert)),
    ];
    this.detachPickup = this.pickup.attach(this);
    return this.fetchLoop();
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    if (this.fallbackTimer) clearInterval(this.fallbackTimer);
    this.fallbackTimer = null;
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    this.detachPickup?.();
    this.detachPickup = null;
    this.announceUnclaimed();
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = null;
  }

  /** The interval's tick: claim unless this instance queried the database since the last tick. */
  private fallbackPoll(): void {
    const maintained = this.maintainedSinceTick;
    this.maintainedSinceTick = false;
    if (maintained || Date.now() - this.lastClaimAt < this.options.pollIntervalMs / 2) return;
    this.wake();
  }

  /**
   * A NOTIFY arrived from backend `pid`: its payload is the earliest run_at (epoch ms) among the rows it
   * announces. One that echoes an insert of this instance's, which woke the poller already, is dropped.
   */
  onNotification(payload: string | undefined, pid: number): void {
    const at = Number(payload);
    if (!Number.isFinite(at)) this.wakeAt(Date.now());
    else if (this.ownInserts.notified(pid, at, Date.now())) this.wakeAt(at);
  }

  /** This instance's insert committed: claim its jobs now (or arm the timer) rather than after its NOTIFY. */
  private onInsertCommitted({ backendPid, earliestRunAt }: CommittedInsert): void {
    if (this.ownInserts.insertCommitted(backendPid, earliestRunAt, Date.now())) this.wakeAt(earliestRunAt);
  }

  /**
   * LocalTaker: whether a claim now would take all of `rows` — every one due now, of a type run here, and room
   * for them beside the quiet jobs not claimed yet (queue and type caps aside: what a cap holds back is announced).
   */
  canTakeAtOnce(rows: readonly NewJobRow[]): boolean {
    if (!this.running) return false;
    for (const row of rows) if (row.run_at !== null || (row.delay_ms !== null && row.delay_ms > 0)) return false;
    return this.pool.runsAtOnce(rows, this.unclaimed.count);
  }

  /**
   * LocalTaker: a quiet insert is on the worker connection; the next claim, sent behind it, is to take its jobs.
   * Called in the same tick as `canTakeAtOnce` answered yes, so the poller is running.
   */
  take(ids: string[]): void {
    this.unclaimed.add(ids);
    this.moreLikely = true;
    this.wake();
  }

  /** Quiet jobs no claim will come for now (no room, a failed claim, shutdown) are announced to the others. */
  private announceUnclaimed(): void {
    if (this.unclaimed.clear()) void this.pickup.announce();
  }

  /**
   * Claim now if `at` has come, else arm a timer for it (keeping the earliest). `at` comes from the
   * database clock; anything due within CLOCK_SLACK_MS is claimed now, so a database clock slightly
   * ahead of this host does not turn an immediate job into a timer. One that has not come by this host's
   * clock gets the timer as well: if the clocks agree, the claim sent now runs before `at` and finds nothing
   * (a job submitted with a delay of a few milliseconds then waited for the fallback poll).
   */
  wakeAt(at: number): void {
    const delay = at - Date.now();
    if (delay <= CLOCK_SLACK_MS) {
      this.moreLikely = true;
      this.wake();
      if (delay <= 0) return;
    }
    if (at >= this.dueAt || !this.running) return;
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueAt = at;
    this.dueTimer = setTimeout(() => {
      this.dueTimer = null;
      this.dueAt = Infinity;
      this.moreLikely = true;
      this.wake();
    }, Math.min(delay + 1, 2 ** 31 - 1));
  }

  /** Claim as much as the pool has room for; coalesces with a claim already in flight. */
  wake(): void {
    if (!this.running) return;
    if (this.fetching) {
      this.again = true;
      return;
    }
    void this.fetchLoop();
  }

  /**
   * Claims until the pool is full or the queue has nothing more for it; never rejects. `fetching` is set before
   * the first await, so a wake-up during the call folds into it.
   */
  private async fetchLoop(): Promise<void> {
    this.fetching = true;
    try {
      let full: boolean;
      do {
        this.again = false;
        const filter = this.pool.claimRequest();
        if (!filter) {
          this.lastPoll = new Date();
          this.announceUnclaimed();
          break;
        }
        const claimNo = this.unclaimed.claimStarting();
        const claimSentAt = performance.now();
        const jobs = await this.strategy.claim(filter, this.options.workerId, this.options.leaseMs);
        this.lastPoll = new Date();
        this.lastClaimAt = this.lastPoll.getTime();
        this.lastErrorMessage = null;
        this.events.emit('claimed', jobs, filter.limit); // empty claims too: metrics count wasted polls
        this.pool.accept(jobs, claimSentAt);
        if (this.unclaimed.claimed(claimNo, jobs)) void this.pickup.announce();
        full = jobs.length === filter.limit;
        // A full claim means more is probably waiting, and so does a capped claim (a slot freeing up in a
        // capped queue or type can take more) or a short optimistic one (it may have lost races). Otherwise
        // a short claim drained what this worker may take: it rests until a notification, a due timer or
        // the fallback poll, instead of asking again after every job (one empty claim per job when idle).
        this.moreLikely =
          full || this.pool.claimWasCapped || (jobs.length > 0 && this.strategy.shortClaimsMayLeaveWork);
      } while (this.running && (this.again || (full && this.pool.freeCapacity() > 0)));
    } catch (err) {
      this.announceUnclaimed();
      this.lastErrorMessage = (err as Error).message;
      if (isConnectionError(err)) this.logger.warn(`Claim failed, database unavailable: ${(err as Error).message}`);
      else this.logger.error(`Claim failed: ${(err as Error).stack ?? String(err)}`);
    } finally {
      this.fetching = false;
    }
  }
}
