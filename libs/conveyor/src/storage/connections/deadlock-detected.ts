/** True when PostgreSQL aborted the statement to break a deadlock (SQLSTATE 40P01, deadlock_detected): it changed nothing. */
export function isDeadlockDetected(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '40P01';
}

/**
 * True when PostgreSQL aborted the statement because it conflicted with a concurrent change under REPEATABLE READ or
 * SERIALIZABLE (SQLSTATE 40001, serialization_failure): it changed nothing, and run again it may succeed. Only a
 * role's or database's default isolation makes the engine's statements on pooled connections meet it.
 */
export function isSerializationFailure(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '40001';
}

/** Runs of one statement or transaction that PostgreSQL aborted to break a deadlock, before its error goes to the caller. */
export const MAX_DEADLOCK_RUNS = 3;

/**
 * Runs `work` (one statement, or a transaction of the engine's own) again when PostgreSQL aborted it to break a
 * deadlock, up to MAX_DEADLOCK_RUNS runs in all. The aborted run changed nothing; run again, it waits for what the other
 * transaction holds instead of holding its own part of the cycle.
 */
export async function runAgainOnDeadlock<T>(work: () => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await work();
    } catch (err) {
      if (!isDeadlockDetected(err) || run === MAX_DEADLOCK_RUNS) throw err;
    }
  }
}
