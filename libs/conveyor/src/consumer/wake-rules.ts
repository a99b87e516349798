import { DueTimes } from './due-times';

/** Due times closer than this are treated as due now (the error of this host's estimate of the database's clock). */
export const CLOCK_SLACK_MS = 20;

/**
 * Queries of its own an instance may have standing in for later fallback ticks, and ticks skipped in a row for them:
 * a maintenance round and a LISTEN probe in the same interval each replace a tick; more than that is not carried over.
 */
const MAX_OWN_QUERIES_OWED = 2;

/** What a due time asks of the poller. */
export interface DueDecision {
  /** Claim now. */
  claimNow: boolean;
  /** (Re-)arm the due timer for this due time (epoch ms; JobPoller fires it a millisecond after); null: leave it. */
  timerAt: number | null;
}

/** What one claim asked for and got. */
export interface ClaimTally {
  taken: number;
  asked: number;
  /** The claim left out a queue or type at its concurrency cap (WorkerPool.claimWasCapped). */
  capped: boolean;
  /** The strategy may come back short although more is claimable (ClaimStrategy.shortClaimsMayLeaveWork). */
  shortClaimsMayLeaveWork: boolean;
}

/**
 * When the poller claims: its decisions, apart from its timers and its claims, so they can be tested alone.
 * Times are epoch ms, passed in.
 *
 * - A claim that came back full, or capped, or short from a strategy that may lose races, makes more work
 *   *likely*; a short one otherwise means this worker drained what it may take, and freed room alone does not wake
 *   the poller again (else an idle worker would send one empty claim per finished job). A due time, its timer,
 *   or a notification makes more work likely again.
 * - Freed room wakes the poller only when more work is likely and the pool wants a refill.
 * - A due time within CLOCK_SLACK_MS is claimed now, so a database clock slightly ahead of this host's estimate of it
 *   (DatabaseClock) does not hold a job back until the timer. One not reached yet is also kept for the due timer
 *   (DueTimes), armed for the earliest kept and, when it fires, for the next, so a due time heard of before an
 *   earlier one is not forgotten. Times here are the database's clock as this host estimates it, so a host clock
 *   ahead of the database's does not make the timer's claim come before the job is due.
 * - The fallback tick claims only when this instance has not talked to the database since the last tick (a claim
 *   within half the interval, a maintenance round, or the LISTEN connection's probe; each query of its own stands in
 *   for one tick's claim, for at most two ticks in a row): an idle instance makes one query per interval, and a job
 *   whose notification was lost waits at most three intervals.
 * - After a claim the poller goes again at once when it was woken meanwhile, or the claim was full and the pool
 *   still has room.
 */
export class WakeRules {
  private moreLikely = true;
  private lastClaimAt = 0;
  /** Queries of its own not yet stood in for a fallback tick's claim (at most MAX_OWN_QUERIES_OWED). */
  private ownQueries = 0;
  /** Ticks skipped in a row for queries of its own. */
  private skippedInARow = 0;
  /** Due times not reached yet; the timer is armed for the earliest. */
  private readonly due = new DueTimes();
  /** The last claim lost every race and was followed by a quick retry (see onLostRaces). */
  private retriedLostRaces = false;

  constructor(private readonly pollIntervalMs: number) {}

  /** Whether more work is likely waiting (see the class comment). */
  get moreWorkLikely(): boolean {
    return this.moreLikely;
  }

  /** Room freed up in the pool: whether to claim. */
  onCapacity(poolWantsRefill: boolean): boolean {
    return this.moreLikely && poolWantsRefill;
  }

  /**
   * Jobs are due by `at` (ClaimTrigger.jobsDueAt): whether to claim now, and whether to arm the due timer. `marginMs`
   * is how far the clock estimate may be ahead (DatabaseClock.uncertaintyMs): a due time passed by less than that
   * may not have come by the database's clock yet, so the timer is kept for it as well as the claim now.
   */
  onDue(at: number, now: number, marginMs = 0): DueDecision {
    const delay = at - now;
    const claimNow = delay <= CLOCK_SLACK_MS;
    if (claimNow) this.moreLikely = true;
    const earliest = delay > -marginMs && this.due.add(at);
    return { claimNow, timerAt: earliest ? at : null };
  }

  /** Jobs are due now by the database's clock as well: claim (always), no timer. */
  onDueNow(): void {
    this.moreLikely = true;
  }

  /** The due timer fired at `now`: claim (always); returns the next due time to arm the timer for, or null. */
  onTimer(now: number): number | null {
    this.moreLikely = true;
    return this.due.reached(now);
  }

  /** This instance queried the database on its own account (its maintenance round, its LISTEN connection's probe). */
  onOwnQuery(): void {
    this.ownQueries = Math.min(this.ownQueries + 1, MAX_OWN_QUERIES_OWED);
  }

  /** The fallback interval ticked: whether to claim. */
  onFallbackTick(now: number): boolean {
    // A query of its own stands in for this tick's claim, but for no more than MAX_OWN_QUERIES_OWED ticks in a row:
    // however often the instance queries on its own, the fallback claims at least every third interval.
    if (this.ownQueries > 0 && this.skippedInARow < MAX_OWN_QUERIES_OWED) {
      this.ownQueries--;
      this.skippedInARow++;
      return false;
    }
    this.skippedInARow = 0;
    return now - this.lastClaimAt >= this.pollIntervalMs / 2;
  }

  /** A claim came back at `now`; true when it was full. */
  onClaimed(claim: ClaimTally, now: number): boolean {
    this.lastClaimAt = now;
    const full = claim.taken === claim.asked;
    this.moreLikely = full || claim.capped || (claim.taken > 0 && claim.shortClaimsMayLeaveWork);
    return full;
  }

  /**
   * A claim came back; whether to claim again shortly because it lost every race (ClaimResult.lostEveryRound): the
   * queue is busy, not empty. Once, not after two such claims in a row: rows out of reach through two claims are held
   * by something other than a competitor's claim (a long transaction, say), and are left to the next wake-up rather
   * than spun on.
   */
  onLostRaces(lostEveryRound: boolean): boolean {
    this.retriedLostRaces = lostEveryRound && !this.retriedLostRaces;
    return this.retriedLostRaces;
  }

  /** Whether to claim again right after a claim. */
  claimAgain(full: boolean, wokenMeanwhile: boolean, freeCapacity: number): boolean {
    return wokenMeanwhile || (full && freeCapacity > 0);
  }
}
