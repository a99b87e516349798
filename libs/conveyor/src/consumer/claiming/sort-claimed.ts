import { Job } from '../../job/job';

/** UPDATE … RETURNING gives rows in no set order; workers start them in claim order. */
export function sortClaimed(jobs: Job[]): Job[] {
  return jobs.sort((a, b) => a.priority - b.priority || a.runAt.getTime() - b.runAt.getTime());
}
