import { epochMicrosSql } from './statement';
/**
 * The finish-answer encoding: an outcome write answers with one row, how many of its outcomes it wrote and, unless
 * all, which, and its time (`answeredOnce` writes it, `writtenAt` reads it). Nearly every batch is written in full;
 * why one row rather than a row per outcome: docs/performance.md, "Design notes from measurements".
 */
export interface FinishAnswer {
  written: number;
  /** Positions (1-based, in the order the outcomes were given) of those written; null when all were. */
  which: number[] | null;
  /** The statement's `now()`, the `updated_at` it gave the rows it wrote, in µs since the epoch (as live items carry it). */
  at_us: string;
}

/** Wraps an outcome UPDATE (its outcomes numbered `o.n` by `unnest … WITH ORDINALITY`, ids in $1) to answer with one `FinishAnswer` row. */
export function answeredOnce(update: string): string {
  return `
WITH written AS (${update}
RETURNING o.n::int AS n)
SELECT a.written,
       CASE WHEN a.written < cardinality($1::uuid[]) THEN ARRAY(SELECT n FROM written) END AS which,
       ${epochMicrosSql('now()')} AS at_us
FROM (SELECT count(*)::int AS written FROM written) a`;
}

/** Whether the outcome at `index` (0-based) of a write that answered `answer` was written. */
export function writtenAt(answer: FinishAnswer): (index: number) => boolean {
  if (answer.which === null) return () => true;
  const which = new Set(answer.which);
  return (index) => which.has(index + 1);
}
