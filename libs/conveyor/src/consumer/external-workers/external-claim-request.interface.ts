/** What an external worker asks for when it claims jobs of one queue. */
export interface ExternalClaimRequest {
  /** Names the worker in `locked_by` and in the job's error history. */
  workerId: string;
  /** Most jobs to take (capped at the engine's `claimBatchSize`). */
  max: number;
  /** Lease of each claimed job; the engine's `leaseMs` when omitted. */
  leaseMs?: number;
  /** Only these external types; every declared external type when omitted. */
  types?: string[];
}
