import { JobStatus } from './job.types';

/** A job handed to an external worker by a claim: what it needs to run it, and the lease it holds. */
export interface ClaimedJob<P = unknown> {
  id: string;
  queue: string;
  type: string;
  payload: P;
  priority: number;
  /** This attempt (1 for the first run). */
  attempts: number;
  maxAttempts: number;
  runAt: string;
  createdAt: string;
  /** Present it on every heartbeat and on the outcome of this attempt. */
  leaseToken: string;
  /** The job is rescued after this unless a heartbeat extends it. */
  lockedUntil: string;
}

/** What a claim asks for. */
export interface ClaimRequest {
  /** Names the worker in `locked_by` and in the job's error history. */
  workerId: string;
  /** Most jobs to take (default 1; the server caps it at its CLAIM_BATCH_SIZE). */
  max?: number;
  /** Lease per job in ms (the server's LEASE_MS when omitted). */
  leaseMs?: number;
  /** Only these of the server's external types. */
  types?: string[];
}

/** A failed attempt, as reported. Without `retryAt` or `permanent` it is retried with backoff until maxAttempts. */
export interface FailureReport {
  error: string;
  errorName?: string;
  stack?: string;
  /** Run again at this time; the attempt does not count. */
  retryAt?: Date | string;
  /**
   * Run again this many milliseconds from now by the service's clock (at most a year), as `retryAt` does; untouched by
   * this machine's clock being off.
   */
  retryInMs?: number;
  /** DEAD at once. */
  permanent?: boolean;
}

/** What a report did to its job. */
export interface OutcomeReport {
  id: string;
  status: JobStatus;
  /** When RETRYING: ms until the job is due again. */
  retryInMs: number | null;
}

/** A lease extended by a heartbeat. */
export interface LeaseReport {
  id: string;
  lockedUntil: string;
}

/** A progress report of a claimed job (`POST /jobs/:id/progress`): `percent`, `data` or both. */
export interface ProgressReport {
  /** 0–100. */
  percent?: number;
  /** A small JSON object of your own, at most 1 KiB as JSON. */
  data?: Record<string, unknown>;
}
