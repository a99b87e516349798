/** True when PostgreSQL aborted the statement to break a deadlock (SQLSTATE 40P01, deadlock_detected): it changed nothing. */
export function isDeadlockDetected(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '40P01';
}
