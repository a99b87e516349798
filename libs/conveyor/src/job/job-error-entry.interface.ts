import { JobErrorKind } from './job-error-kind';

/** One attempt in a job's error history that did not complete: failed, rescued, snoozed, handed back. */
export interface JobErrorEntry {
  /** The attempt it ended (the job's `attempts` at the time). */
  attempt: number;
  /** When it ended, as an ISO date-time (the history is stored as jsonb). */
  at: string;
  kind: JobErrorKind;
  error: string;
  /** Stack trace, when the handler threw an Error. */
  stack?: string;
  /** The worker that ran the attempt. */
  worker?: string | null;
  /** When a retry-later asked to run again. */
  retryAt?: string;
}
