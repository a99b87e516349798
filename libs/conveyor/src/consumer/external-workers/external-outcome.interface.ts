import { JobStatus } from '../../job/job-status';

/** What an external worker's report did to its job. */
export interface ExternalOutcome {
  id: string;
  /** The job's new status: COMPLETED, RETRYING or DEAD; PENDING when handed back. */
  status: JobStatus;
  /** When the job is RETRYING: milliseconds until it is due again; null otherwise. */
  retryInMs: number | null;
}

/** A lease extended by a heartbeat. */
export interface ExternalLease {
  id: string;
  lockedUntil: Date;
}
