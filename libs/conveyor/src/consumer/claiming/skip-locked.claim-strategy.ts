import { Injectable } from '@nestjs/common';
import { WorkerConnection } from '../../storage/connections/worker-connection.service';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { ClaimedJobRow, claimedStartedAtUs, mapClaimedJobRow } from '../../storage/statements/claimed-row.codec';
import { ClaimFilter } from '../../storage/statements/claim-filter.interface';
import { ClaimStamp, claimNonce } from '../../storage/statements/claim-set';
import { jobClaimSkipLocked } from '../../storage/statements/job-claim-skip-locked.sql';
import { run } from '../../storage/statements/statement';
import { ClaimResult, ClaimStrategy } from './claim-strategy.interface';
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

  async claim(filter: ClaimFilter, workerId: string, leaseMs: number): Promise<ClaimResult> {
    const stamp: ClaimStamp = { workerId, leaseMs, token: claimNonce() };
    const { rows } = await run<ClaimedJobRow>(this.connection.runner, jobClaimSkipLocked(this.db.tables, filter, stamp));
    return {
      jobs: sortClaimed(rows.map((r) => mapClaimedJobRow(r, stamp))),
      lostEveryRound: false,
      startedAtUs: () => claimedStartedAtUs(rows),
    };
  }
}
