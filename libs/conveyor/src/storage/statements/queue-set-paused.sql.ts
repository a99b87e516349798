import { pauseNoticeSql } from './pause-notice.codec';
import { SqlTables, Statement } from './statement';

/**
 * Pauses or resumes a queue on every instance (the claim statements read this table). A pause also sends the pause
 * notice on `channel` when it commits, so instances hand back the jobs of the queue they claimed ahead and have not
 * started.
 */
export function queueSetPaused(t: SqlTables, queue: string, paused: boolean, channel: string): Statement {
  return {
    text: `
WITH set AS (
  INSERT INTO ${t.queues} (name, paused, updated_at) VALUES ($1, $2, now())
  ON CONFLICT (name) DO UPDATE SET paused = EXCLUDED.paused, updated_at = now()
  RETURNING name, paused
)
SELECT name, paused, CASE WHEN paused THEN ${pauseNoticeSql('$3', 'name')} END AS noticed FROM set`,
    values: [queue, paused, channel],
  };
}
