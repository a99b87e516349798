import { Injectable } from '@nestjs/common';
import { WorkerConnection } from '../../storage/connections/worker-connection.service';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { Job } from '../../job/job';
import { CLAIMED_COLUMN_COUNT, ClaimedJobRow, mapClaimedJobRow } from '../../storage/statements/claimed-row.codec';
import { ClaimFilter } from '../../storage/statements/claim-filter.interface';
import { ClaimStamp, claimNonce } from '../../storage/statements/claim-set';
import { jobClaimByVersion } from '../../storage/statements/job-claim-by-version.sql';
import { run } from '../../storage/statements/statement';
import { ClaimStrategy } from './claim-strategy.interface';
import { sortClaimed } from './sort-claimed';

/** Where a claim's row carries `candidates` (see jobClaimByVersion): after the claimed job's columns. */
const CANDIDATES = CLAIMED_COLUMN_COUNT;

/** Rounds of read-then-compare-and-set per claim before giving the slots back to the next poll. */
const MAX_ROUNDS = 5;

/**
 * Claims, after the last one that lost a race, whose first round already reads a double window. Each lost
 * race starts the count again, so workers that keep meeting each other keep reading wide; a worker alone
 * never loses one and always reads only what it wants.
 */
const WIDE_CLAIMS_AFTER_LOSS = 32;

/**
 * Optimistic strategy: read the head of the queue without locks, then claim all candidates with one
 * compare-and-set on the row's version column, both in one statement (see jobClaimByVersion). A candidate another
 * worker took first has a new version and is skipped; when some were lost, the next round reads again (the
 * lost rows are RUNNING now, so it reads past them). No row lock is held while choosing, which suits
 * databases or proxies where long-held locks hurt; under heavy contention between many workers
 * `skip-locked` wastes less work.
 */
@Injectable()
export class OptimisticClaimStrategy implements ClaimStrategy {
  readonly name = 'optimistic';
  readonly shortClaimsMayLeaveWork = true;
  /**
   * The last claim met competition: it came back full (a backlog) or lost races. True at start, as a worker
   * boots into whatever backlog there is. Shared by the poller's claims and the HTTP workers'.
   */
  private contended = true;
  /** Claims left whose first round reads a double window (see WIDE_CLAIMS_AFTER_LOSS). */
  private wideClaimsLeft = 0;
  private lostEveryRound = false;

  /** See ClaimStrategy: set for the first of consecutive claims that won nothing under competition. */
  get lastClaimLostEveryRound(): boolean {
    return this.lostEveryRound;
  }

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly connection: WorkerConnection,
  ) {}

  async claim(filter: ClaimFilter, workerId: string, leaseMs: number): Promise<Job[]> {
    const claimed: Job[] = [];
    // Under competition a round that wins nothing is read as lost races, not an empty queue (an empty answer
    // cannot say which: the candidate count rides on the rows won), and the next round reads again; a worker
    // that took an empty round for an empty queue would rest until the fallback poll while a busy competitor
    // took the whole backlog. Without competition an empty round ends the claim, so an idle worker, or one fed a job at a time, still makes
    // one query per wake-up.
    const retryEmpty = this.contended;
    let lostRace = false;
    for (let round = 0; round < MAX_ROUNDS && claimed.length < filter.limit; round++) {
      const want = filter.limit - claimed.length;
      // After a lost race the head is most likely held by a competitor's claim still running: read a window
      // twice as wide, so the round can take the rows behind it. The first round does so too for a while after
      // a claim that lost one: workers draining one backlog keep meeting on its head, and each meeting would
      // otherwise cost a second statement.
      const window = round > 0 || this.wideClaimsLeft > 0 ? want * 2 : want;
      const stamp: ClaimStamp = { workerId, leaseMs, token: claimNonce() };
      const statement = jobClaimByVersion(this.db.tables, { ...filter, limit: want }, stamp, window);
      const won = (await run<ClaimedJobRow>(this.connection.runner, statement)).rows;
      claimed.push(...won.map((r) => mapClaimedJobRow(r, stamp)));
      // Lost: fewer won than wanted although the read found more — competitors took them.
      const lost = won.length === 0 ? retryEmpty : won.length < Math.min(want, won[0][CANDIDATES] as number);
      if (!lost) break;
      lostRace = true;
    }
    // A claim that won nothing although every round counted as lost says the queue is busy, not empty, once: the
    // caller claims again shortly, still contended. A second one in a row is read as an empty queue (its rounds were
    // empty reads, which cannot tell the two apart), so an idle worker does not keep claiming.
    const lostEveryRound = claimed.length === 0 && lostRace && !this.lostEveryRound;
    this.contended = claimed.length === filter.limit || (lostRace && claimed.length > 0) || lostEveryRound;
    this.lostEveryRound = lostEveryRound;
    this.wideClaimsLeft = lostRace ? WIDE_CLAIMS_AFTER_LOSS : Math.max(0, this.wideClaimsLeft - 1);
    return sortClaimed(claimed);
  }
}
