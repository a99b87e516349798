import { LiveItem, liveItemOf } from '../../observation/live/live-event';
import { ClaimResult } from './claim-strategy.interface';

/** The live items of a claim's jobs: RUNNING since the claim's time, with no progress (a claim clears it: claimSet). */
export function claimedItems(claim: ClaimResult): LiveItem[] {
  const at = claim.startedAtUs();
  return claim.jobs.map((job) => {
    const atUs = at.get(job.id);
    if (atUs === undefined) throw new Error(`Claimed job ${job.id} has no claim time`);
    return liveItemOf(job, job.status, atUs, null);
  });
}
