import { Job } from '../jobs/job.entity';
import { ClaimFilter } from '../sql/claim-filter.interface';

/**
 * How a worker takes jobs. Contract shared by every strategy (and proven by the conformance suite):
 * only due jobs in a claimable state, in (priority, run_at) order, each returned to exactly one caller,
 * marked RUNNING with attempts + 1, a lease of `leaseMs`, and a fresh lease token.
 */
export interface ClaimStrategy {
  readonly name: string;
  claim(filter: ClaimFilter, workerId: string, leaseMs: number): Promise<Job[]>;
}
