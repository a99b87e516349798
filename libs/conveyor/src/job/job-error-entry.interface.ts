/** One failed attempt in a job's error history. */
export interface JobErrorEntry {
  attempt: number;
  at: string;
  error: string;
  stack?: string;
  worker?: string | null;
  /** How the attempt ended: failed, timeout, lease-expired, snoozed, permanent. */
  kind: string;
}
