import { Injectable } from '@nestjs/common';
import { WorkerConnection } from '../database/worker-connection.service';
import { ConveyorDatabase } from '../database/conveyor-database.service';
import { Job } from '../jobs/job.entity';
import { mapClaimedJobRow } from '../jobs/job-row.mapper';
import { ClaimFilter } from '../sql/claim-filter.interface';
import { ClaimStamp, claimNonce } from '../sql/claim-set';
import { jobClaimSkipLocked } from '../sql/job-claim-skip-locked.sql';
import { ClaimedJobRow, run } from '../sql/statement';
import { ClaimStrategy } from './claim-strategy.interface';
import { sortClaimed } from './sort-claimed';

/**
 * Default strategy: one `UPDATE … FROM (SELECT … FOR UPDATE SKIP LOCKED LIMIT n)` per batch.
 * Workers never block each other; the row locks last only for that one statement.
 */
@Injectable()
export class SkipLockedClaimStrategy implements ClaimStrategy {
  readonly name = 'skip-locked';
  readonly shortClaimsMayLeaveWork = false;

  constructor(
    private readonly db: ConveyorDatabase,
    private readonly connection: WorkerConnection,
  ) {}

  async claim(filter: ClaimFilter, workerId: string, leaseMs: number): Promise<Job[]> {
    const stamp: ClaimStamp = { workerId, leaseMs, token: claimNonce() };
    const { rows } = await run<ClaimedJobRow>(this.connection.runner, jobClaimSkipLocked(this.db.tables, filter, stamp));
    return sortClaimed(rows.map((r) => mapClaimedJobRow(r, stamp)));
  }
}
