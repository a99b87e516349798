import { LiveItem, liveItemOf } from '../../observation/live/live-event';
import { ClaimResult } from './claim-strategy.interface';

/** The live items of a claim's jobs: RUNNING since the claim's time, with no progress (a claim clears it: claimSet). */
export function claimedItems(claim: ClaimResult): LiveItem[] {
  const at = claim.startedAtUs();
  return claim.jobs.map((job) => liveItemOf(job, job.status, at.get(job.id) as string, null));
}
