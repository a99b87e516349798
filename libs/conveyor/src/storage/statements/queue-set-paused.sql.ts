import { SqlTables, Statement } from './statement';

/** Pauses or resumes a queue on every instance (the claim statements read this table). */
export function queueSetPaused(t: SqlTables, queue: string, paused: boolean): Statement {
  return {
    text: `
INSERT INTO ${t.queues} (name, paused, updated_at) VALUES ($1, $2, now())
ON CONFLICT (name) DO UPDATE SET paused = EXCLUDED.paused, updated_at = now()
RETURNING name, paused`,
    values: [queue, paused],
  };
}
