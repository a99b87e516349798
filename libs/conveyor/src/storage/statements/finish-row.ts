import { JobErrorEntry } from '../../job/job-error-entry.interface';
import { JobStatus } from '../../job/job-status';

/** How one attempt ended, ready to be written back. */
export interface FinishRow {
  id: string;
  /** Fencing token of the claim this outcome belongs to. */
  token: string;
  status: JobStatus;
  result?: unknown;
  error?: string | null;
  /** Appended to the error history when set. */
  entry?: JobErrorEntry | null;
  /** New run_at = now() + delay (database clock); null keeps run_at. */
  delay_ms?: number | null;
  /** 1 when the attempt must not count (snooze, hand-back at shutdown). */
  refund?: number;
  /** 1 when the handler asked to run later. */
  snoozed?: number;
}
