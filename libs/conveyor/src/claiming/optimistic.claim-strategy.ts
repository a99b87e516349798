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

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly claims: ClaimConnections,
  ) {}

  async claim(filter: ClaimFilter, workerId: string, leaseMs: number): Promise<Job[]> {
    const claimed: Job[] = [];
    for (let round = 0; round < MAX_ROUNDS && claimed.length < filter.limit; round++) {
      const want = filter.limit - claimed.length;
      const statement = jobClaimByVersion(this.db.tables, { ...filter, limit: want }, workerId, leaseMs);
      const won = (await run<JobRow & { candidates: number }>(this.claims.runner, statement)).rows;
      claimed.push(...won.map((r) => mapClaimedJobRow(r, workerId, leaseMs)));
      // Every candidate read was won (the queue head had no competitor), or none was: no need to read again.
      // Losing them all means other workers are taking this head; the poller asks again after a short claim.
      if (won.length === 0 || won.length === won[0].candidates) break;
    }
    return sortClaimed(claimed);
  }
}
