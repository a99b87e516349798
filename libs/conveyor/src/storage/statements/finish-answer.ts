/** What an outcome write answers: how many of its outcomes it wrote and, unless all, which. */
export interface FinishAnswer {
  written: number;
  /** Positions (1-based, in the order the outcomes were given) of those written; null when all were. */
  which: number[] | null;
}

/**
 * An outcome UPDATE (its outcomes numbered `o.n` by `unnest … WITH ORDINALITY`, ids in $1) answering with
 * one `FinishAnswer` row rather than a row per outcome written. Nearly every batch is written in full, and
 * Node parsed a hundred rows per batch to learn only that: 2-3% of a draining worker's main thread. For
 * PostgreSQL the two cost the same (0.90 / 0.92 ms of backend CPU per 100 completions, 3 alternating runs).
 */
export function answeredOnce(update: string): string {
  return `
WITH written AS (${update}
RETURNING o.n::int AS n)
SELECT a.written,
       CASE WHEN a.written < cardinality($1::uuid[]) THEN ARRAY(SELECT n FROM written) END AS which
FROM (SELECT count(*)::int AS written FROM written) a`;
}

/** Whether the outcome at `index` (0-based) of a write that answered `answer` was written. */
export function writtenAt(answer: FinishAnswer): (index: number) => boolean {
  if (answer.which === null) return () => true;
  const which = new Set(answer.which);
  return (index) => which.has(index + 1);
}
