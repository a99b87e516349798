import { Injectable } from '@nestjs/common';
import { ClaimConnections } from '../database/claim-connections.service';
import { ConveyorDatabase } from '../database/conveyor-database.service';
import { Job } from '../jobs/job.entity';
import { JobRow, mapClaimedJobRow } from '../jobs/job-row.mapper';
import { ClaimFilter } from '../sql/claim-filter.interface';
import { jobClaimByVersion } from '../sql/job-claim-by-version.sql';
import { run } from '../sql/statement';
import { ClaimStrategy } from './claim-strategy.interface';
import { sortClaimed } from './sort-claimed';

/** Rounds of read-then-compare-and-set per claim before giving the slots back to the next poll. */
const MAX_ROUNDS = 5;

/**
 * Optimistic strategy: read the head of the queue without locks, then claim all candidates with one
 * compare-and-set on the @VersionColumn, both in one statement (see jobClaimByVersion). A candidate another
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

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly claims: ClaimConnections,
  ) {}

  async claim(filter: ClaimFilter, workerId: string, leaseMs: number): Promise<Job[]> {
    const claimed: Job[] = [];
    // Under competition a round that wins nothing is read as lost races, not an empty queue (an empty answer
    // cannot say which: the candidate count rides on the rows won), and the next round reads again. Otherwise
    // a worker that lost one race to a busy competitor rested until the fallback poll, and under a backlog one
    // instance took nearly every job (two processes draining 20,000 no-op jobs: 19,500 / 500). Without
    // competition an empty round ends the claim, so an idle worker, or one fed a job at a time, still makes
    // one query per wake-up.
    const retryEmpty = this.contended;
    let lost = false;
    for (let round = 0; round < MAX_ROUNDS && claimed.length < filter.limit; round++) {
      const want = filter.limit - claimed.length;
      // After a lost round the head is most likely held by a competitor's claim still running: read a window
      // twice as wide, so this round can take the rows behind it (the first round reads only what it wants,
      // which is all a worker without competitors ever needs).
      const window = round === 0 ? want : want * 2;
      const statement = jobClaimByVersion(this.db.tables, { ...filter, limit: want }, workerId, leaseMs, window);
      const won = (await run<JobRow & { candidates: number }>(this.claims.runner, statement)).rows;
      claimed.push(...won.map((r) => mapClaimedJobRow(r, workerId, leaseMs)));
      if (won.length === 0 && !retryEmpty) break;
      // Every row the read found was won: nothing was lost to a competitor. (A full claim ends the loop anyway.)
      if (won.length > 0 && won.length === won[0].candidates) break;
      lost = true;
    }
    this.contended = claimed.length === filter.limit || (lost && claimed.length > 0);
    return sortClaimed(claimed);
  }
}
