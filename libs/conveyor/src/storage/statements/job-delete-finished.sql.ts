import { lockedInIdOrder } from './locked-in-id-order';
import { SqlTables, Statement } from './statement';

/**
 * Purges each of `ids` that is in a terminal state (an operator clearing DEAD jobs), in one statement and one commit.
 * A row comes back for each job deleted; a listed job missing or not terminal has none, and the caller settles it on
 * its own. The rows are locked in id order first (`lockedInIdOrder`, with the DELETE's own lock), so a list cannot
 * deadlock with the other statements that wait for several job rows; callers bound the list (MAX_BULK_IDS).
 */
export function jobDeleteFinished(t: SqlTables, ids: readonly string[]): Statement {
  return {
    text: `
WITH ${lockedInIdOrder(t.jobs, '$1::uuid[]', { where: `status IN ('COMPLETED','DEAD','CANCELLED')`, strength: 'FOR UPDATE' })}
DELETE FROM ${t.jobs} WHERE id = ANY(ARRAY(SELECT id FROM locked)) AND status IN ('COMPLETED','DEAD','CANCELLED')
RETURNING id, queue, type`,
    values: [ids],
  };
}
