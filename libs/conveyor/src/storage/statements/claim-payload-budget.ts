/**
 * The payload budget of a bounded claim (`ClaimFilter.maxPayloadBytes`, set by HTTP workers' claims, whose answer is
 * one JSON text): of the rows a claim statement has locked, it takes them in claim order while the stored payloads
 * claimed so far, up to and including each, stay within the budget, and always the claim's first. The rows past it
 * stay locked until the statement ends but are not updated: they stay as they were, claimable by the next claim.
 *
 * Sizes are `pg_column_size(payload)`, what the row stores: read from the row or its TOAST pointer without fetching
 * or decompressing the payload, so the payloads the claim leaves out are never read. A compressed payload stores
 * less than its JSON text, so a bounded claim may still take more text than its answer carries: the answer's own cut
 * by characters (ExternalWorkers.withinAnswer) stays, and hands those back. Rows with the same priority and run_at
 * have no order among themselves in a claim, and none in the running sum: which of them the budget takes is arbitrary,
 * as which of them a claim locks is.
 */

/** What a bounded claim selects of each row `alias` it locks: its tuple id `tid`, its payload's stored `size`, and its claim order. */
export function payloadSizedColumns(alias: string): string {
  return `${alias}.ctid AS tid, pg_column_size(${alias}.payload) AS size, ${alias}.priority, ${alias}.run_at`;
}

/**
 * The `tid` and `size` of the rows of `locked` (a FROM item whose rows have `payloadSizedColumns`) the budget takes.
 * `budget` is the bind parameter of the budget in bytes, `spent` (none: 0) the one of the stored bytes earlier statements
 * of the same claim took (an optimistic claim's later rounds): the claim's first row is the one with nothing taken before it.
 */
export function withinPayloadBudget(locked: string, budget: string, spent?: string): string {
  return `SELECT s.tid, s.size FROM (
    SELECT r.tid, r.size, ${spent === undefined ? '' : `${spent}::bigint + `}sum(r.size) OVER (ORDER BY r.priority, r.run_at ROWS UNBOUNDED PRECEDING) AS through
    FROM ${locked} r
  ) s
  WHERE s.through <= ${budget}::bigint OR s.through = s.size`;
}
