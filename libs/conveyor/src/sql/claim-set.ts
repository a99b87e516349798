/**
 * The SET list every claim uses, so both strategies mark a claimed row identically: RUNNING, one more
 * attempt, this worker, a fresh lease and a new fencing token. $W is the worker id, $L the lease in ms.
 */
export function claimSet(alias: string, workerParam: string, leaseParam: string): string {
  return `status = 'RUNNING',
  attempts = ${alias}.attempts + 1,
  locked_by = ${workerParam},
  locked_until = now() + ${leaseParam} * interval '1 millisecond',
  lease_token = gen_random_uuid(),
  started_at = now(),
  updated_at = now(),
  version = ${alias}.version + 1`;
}
