import { Injectable } from '@nestjs/common';
import { WorkerConnection } from '../../storage/connections/worker-connection.service';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { Job } from '../../job/job';
import {
  CLAIMED_COLUMN,
  CLAIMED_COLUMN_COUNT,
  ClaimedJobRow,
  claimedStartedAtUs,
  mapClaimedJobRow,
} from '../../storage/statements/claimed-row.codec';
import { ClaimFilter } from '../../storage/statements/claim-filter.interface';
import { ClaimStamp, claimNonce } from '../../storage/statements/claim-set';
import { jobClaimByVersion } from '../../storage/statements/job-claim-by-version.sql';
import { run } from '../../storage/statements/statement';
import { ClaimResult, ClaimStrategy } from './claim-strategy.interface';
import { sortClaimed } from './sort-claimed';

/** Where a claim's row carries `candidates` (see jobClaimByVersion): after the claimed job's columns. */
const CANDIDATES = CLAIMED_COLUMN_COUNT;
/** Where a bounded claim's row carries `locked` and `kept_bytes` (see jobClaimByVersion): after `candidates`. */
const LOCKED = CANDIDATES + 1;
const KEPT_BYTES = CANDIDATES + 2;

/** Rounds of read-then-compare-and-set per claim before giving the slots back to the next wake-up. */
const MAX_ROUNDS = 5;

/**
 * Claims, after the last one that lost a race, whose first round already reads a double window. Each lost
 * race starts the count again, so workers that keep meeting each other keep reading wide; a worker alone
 * never loses one and always reads only what it wants.
 */
const WIDE_CLAIMS_AFTER_LOSS = 32;

/**
 * Optimistic strategy: read the head of the queue without locks, then claim the candidates with one compare-and-set
 * on the row's version column, both in one statement (jobClaimByVersion). No row lock is held while choosing, which
 * suits databases or proxies where long-held locks hurt; under heavy contention between many workers `skip-locked`
 * wastes less work.
 *
 * The statement answers how many rows it read as well as the rows it won, even when it won none, so every round ends
 * one of three ways:
 * - it won what it wanted, or all it read: the claim ends (a short read is a short queue);
 * - it read none: the queue is empty for this worker, and the claim ends with one statement;
 * - it won fewer than it read and wanted: competitors took the rest (their claims committed after this read, or are
 *   still running and hold the rows), and the next round reads again, twice as wide, past the rows they took.
 * After MAX_ROUNDS rounds, widest `want × 2^5`, the claim ends with what it won; one that won nothing then says
 * `lostEveryRound`, and the poller decides whether to claim again shortly (WakeRules.onLostRaces).
 *
 * A claim with a payload budget (`maxPayloadBytes`) counts the rows it locked as won, those its budget left out too
 * (they were not lost to a competitor), and ends once the budget left a row out or is spent; its later rounds take
 * only what the earlier ones left of the budget.
 */
@Injectable()
export class OptimisticClaimStrategy implements ClaimStrategy {
  readonly name = 'optimistic';
  readonly shortClaimsMayLeaveWork = true;
  /**
   * Claims left whose first round reads a double window (see WIDE_CLAIMS_AFTER_LOSS). Shared by the poller's claims
   * and the HTTP workers': it only sizes reads, so one caller's losses widening another's first read costs nothing.
   */
  private wideClaimsLeft = 0;

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly connection: WorkerConnection,
  ) {}

  async claim(filter: ClaimFilter, workerId: string, leaseMs: number): Promise<ClaimResult> {
    const claimed: Job[] = [];
    const wonRows: ClaimedJobRow[] = [];
    let lostRace = false;
    let lastRoundLost = false;
    const budget = filter.maxPayloadBytes ?? null;
    let spentBytes = 0;
    for (let round = 0; round < MAX_ROUNDS && claimed.length < filter.limit; round++) {
      const want = filter.limit - claimed.length;
      // The first round reads double for a while after a claim that lost a race: workers draining one backlog keep
      // meeting on its head, and each meeting would otherwise cost a second statement.
      const window = want * 2 ** (round + (this.wideClaimsLeft > 0 ? 1 : 0));
      const stamp: ClaimStamp = { workerId, leaseMs, token: claimNonce() };
      const statement = jobClaimByVersion(this.db.tables, { ...filter, limit: want }, stamp, window, spentBytes);
      const rows = (await run<ClaimedJobRow>(this.connection.runner, statement)).rows;
      // One row with null job columns when the statement won nothing: it still carries the count it read.
      const read = rows[0][CANDIDATES] as number;
      const won = rows[0][CLAIMED_COLUMN.id] === null ? [] : rows;
      claimed.push(...won.map((r) => mapClaimedJobRow(r, stamp)));
      wonRows.push(...won);
      const locked = budget === null ? won.length : (rows[0][LOCKED] as number);
      lastRoundLost = locked < Math.min(want, read);
      if (!lastRoundLost) break;
      lostRace = true;
      if (budget !== null) {
        spentBytes += Number(rows[0][KEPT_BYTES]);
        if (locked > won.length || spentBytes >= budget) break;
      }
    }
    this.wideClaimsLeft = lostRace ? WIDE_CLAIMS_AFTER_LOSS : Math.max(0, this.wideClaimsLeft - 1);
    return {
      jobs: sortClaimed(claimed),
      lostEveryRound: claimed.length === 0 && lastRoundLost,
      startedAtUs: () => claimedStartedAtUs(wonRows),
    };
  }
}
