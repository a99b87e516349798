import { randomUUID } from 'node:crypto';

/**
 * The SET list every claim uses, so both strategies mark a claimed row identically: RUNNING, one more
 * attempt, this worker, a fresh lease and a new fencing token, and no progress yet (a new attempt starts over). $W is the worker id, $L the lease in ms,
 * $N the claim's nonce (`claimNonce()`).
 *
 * The fencing token is the claim's nonce: one random version-4 UUID per claim statement, shared by the
 * rows it claims. Fencing needs a token per attempt, not per row: every statement that checks a token
 * (completion, heartbeat, external workers' reports) pairs it with the job's id, and a job claimed again
 * gets another claim's nonce, so the stale holder's (id, token) matches nothing. The nonce has 122 random
 * bits, so it cannot be guessed. It is stored in the rows' `lease_token` until the attempt ends, and whoever reads
 * the job row sees it: the worker that claimed (an HTTP worker in the claim's answer) and in-process readers
 * (`JobsService.get` and `list` return the stored job). The REST API leaves it out of every other answer
 * (`toJobView`), so an API key that may read jobs cannot report another worker's outcome. Why one token per
 * statement rather than per row: docs/performance.md, "Design notes from measurements".
 */
export function claimSet(alias: string, workerParam: string, leaseParam: string, nonceParam: string): string {
  return `status = 'RUNNING',
  attempts = ${alias}.attempts + 1,
  locked_by = ${workerParam},
  locked_until = now() + ${leaseParam} * interval '1 millisecond',
  lease_token = ${nonceParam}::uuid,
  started_at = now(),
  updated_at = now(),
  progress = NULL,
  version = ${alias}.version + 1`;
}

/**
 * What one claim statement stamps on every row it claims: this worker, the lease, and the statement's
 * nonce as fencing token. The caller keeps it, so the rows need not send these back.
 */
export interface ClaimStamp {
  workerId: string;
  leaseMs: number;
  /** `claimNonce()`: fresh for every claim statement. */
  token: string;
}

/** A fresh nonce for one claim statement: the fencing token of every row it claims. */
export function claimNonce(): string {
  return randomUUID();
}
