import type { NewJobRow } from '@conveyor/core/storage/statements/new-job-row';

let made = 0;

/**
 * A validated row for unit specs of the insert path: a job of type `T` on the default queue without options, its
 * fields overridden by `over`. Ids increase in the order rows are made (`id-000001`, …), as newJobId's do.
 */
export function newJobRow(over: Partial<NewJobRow> = {}): NewJobRow {
  return {
    id: `id-${String(++made).padStart(6, '0')}`,
    queue: 'default',
    type: 'T',
    payload: {},
    priority: 0,
    run_at: null,
    delay_ms: null,
    max_attempts: 5,
    idempotency_key: null,
    idempotency_hash: null,
    unique_key: null,
    ...over,
  };
}
