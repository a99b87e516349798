/** Name of the partial unique index on (type, unique_key) of waiting and running jobs (see storage/schema.sql). */
export const UNIQUE_KEY_INDEX = 'conveyor_jobs_unique_key';

/** True when a statement failed on the unique index `index` (SQLSTATE 23505, unique_violation). */
export function isUniqueViolation(err: unknown, index: string): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && e.constraint === index;
}
