import { Job } from '../../job/job';
import { ClaimFilter } from '../../storage/statements/claim-filter.interface';

/**
 * How a worker takes jobs. Contract shared by every strategy (and proven by the conformance suite):
 * only due jobs in a claimable state, in (priority, run_at) order, each returned to exactly one caller,
 * marked RUNNING with attempts + 1, a lease of `leaseMs`, and a fresh lease token.
 */
export interface ClaimStrategy {
  readonly name: string;
  /**
   * Whether a claim may come back short while claimable work remains (an optimistic claim that lost
   * races). When false, a short claim means the queue was drained as far as this worker may take it,
   * and the poller rests until a notification, a due timer or freed capacity in a capped queue or type.
   */
  readonly shortClaimsMayLeaveWork: boolean;
  claim(filter: ClaimFilter, workerId: string, leaseMs: number): Promise<ClaimResult>;
}

/** What one claim took. */
export interface ClaimResult {
  /** The jobs claimed, in claim order. */
  jobs: Job[];
  /**
   * The claim came back empty because competitors took every row it read, round after round, not because nothing
   * was claimable: the queue is busy, not empty. Only a strategy whose short claims may leave work sets it.
   */
  lostEveryRound: boolean;
  /**
   * Each claimed job's id with its `started_at` (the `updated_at` the claim gave it) in µs since the epoch, as text:
   * what a live event of the claim carries. Read from the claim's rows when asked.
   */
  startedAtUs(): ReadonlyMap<string, string>;
}
