import { Injectable } from '@nestjs/common';
import { WorkerConnection } from '../../storage/connections/worker-connection.service';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { Job } from '../../job/job';
import { CLAIMED_COLUMN, CLAIMED_COLUMN_COUNT, ClaimedJobRow, mapClaimedJobRow } from '../../storage/statements/claimed-row.codec';
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
 * worker took first has a new version and is skipped; when some were lost, the next round reads again, wider (the
 * lost rows are RUNNING now or held by the competitor's claim, so it reads past them). No row lock is held while choosing, which suits
 * databases or proxies where long-held locks hurt; under heavy contention between many workers
 * `skip-locked` wastes less work.
 */
@Injectable()
export class OptimisticClaimStrategy implements ClaimStrategy {
  readonly name = 'optimistic';
  readonly shortClaimsMayLeaveWork = true;
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
    let lostRace = false;
    let lastRoundLost = false;
    for (let round = 0; round < MAX_ROUNDS && claimed.length < filter.limit; round++) {
      const want = filter.limit - claimed.length;
      // After a lost race the head is most likely held by competitors' claims still running: each round reads a
      // window twice as wide as the last, so it reaches the rows behind them however many they hold. The first
      // round reads double for a while after a claim that lost one: workers draining one backlog keep meeting
      // on its head, and each meeting would otherwise cost a second statement.
      const window = want * 2 ** (round + (this.wideClaimsLeft > 0 ? 1 : 0));
      const stamp: ClaimStamp = { workerId, leaseMs, token: claimNonce() };
      const statement = jobClaimByVersion(this.db.tables, { ...filter, limit: want }, stamp, window);
      const rows = (await run<ClaimedJobRow>(this.connection.runner, statement)).rows;
      // One row with null job columns when the statement won nothing: it still carries the count it read.
      const read = rows[0][CANDIDATES] as number;
      const won = rows[0][CLAIMED_COLUMN.id] === null ? [] : rows;
      claimed.push(...won.map((r) => mapClaimedJobRow(r, stamp)));
      // Lost: fewer won than wanted although the read found more — competitors took them.
      lastRoundLost = won.length < Math.min(want, read);
      if (!lastRoundLost) break;
      lostRace = true;
    }
    // A claim that won nothing although its every round read rows it could not take says the queue is busy, not
    // empty: the caller claims again shortly. Only once in a row: rows that stay out of reach through two claims are
    // held by something other than a competitor's claim (a long transaction), and waiting for them is left to the
    // next wake-up rather than spun on.
    this.lostEveryRound = claimed.length === 0 && lastRoundLost && !this.lostEveryRound;
    this.wideClaimsLeft = lostRace ? WIDE_CLAIMS_AFTER_LOSS : Math.max(0, this.wideClaimsLeft - 1);
    return sortClaimed(claimed);
  }
}
