/**
 * When the maintenance leader's duties (rescuing expired leases, pruning, retention) wait after an outage.
 *
 * An outage longer than a lease lets leases run out while the attempts they cover have finished and their outcomes
 * wait in memory; those outcomes must land before their leases are declared lost, or a job that succeeded runs again
 * (or ends DEAD on its last attempt). So the first round that gets through after this instance found the database
 * unreachable carries no duties, and neither does any round for `holdMs` after it: time for every completer that waited
 * through the outage to try again. The hold is counted from that first round, not from the outage, since the leader
 * may get through only a maintenance interval after the database is back.
 *
 * A hold is bounded: once it is over, a round with duties comes before another hold may begin, however often the
 * database is found unreachable meanwhile (a pool that keeps timing out would otherwise hold the rescue for good).
 */
export class RescueHold {
  private until = 0;
  /** A hold ended and no round has carried the duties since. */
  private owed = false;

  constructor(private readonly holdMs: number) {}

  /**
   * Whether the round about to be sent at `now` (performance.now()) carries the duties; `outageSinceLastRound` says
   * whether the database was found unreachable since the last round that got through.
   */
  dutiesNow(now: number, outageSinceLastRound: boolean): boolean {
    if (now < this.until) return false;
    if (this.owed) return true;
    if (!outageSinceLastRound) return true;
    this.until = now + this.holdMs;
    this.owed = true;
    return false;
  }

  /** The round got through carrying the duties. */
  dutiesDone(): void {
    this.owed = false;
  }

  /** The round did not get through: a hold it began starts again from the next round that does. */
  roundFailed(): void {
    if (this.owed && this.until > 0) {
      this.until = 0;
      this.owed = false;
    }
  }
}
