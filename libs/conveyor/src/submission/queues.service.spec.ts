import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { sqlTablesFor } from '../storage/connections/sql-tables';
import { QueuesService } from './queues.service';

/** A database with one queue, `mail`, whose paused flag the pause statement sets; the resume's wake-up notice fails. */
function database() {
  let paused = false;
  let summaryReads = 0;
  const db = {
    tables: sqlTablesFor('public'),
    channel: 'conveyor:public',
    pool: {
      query: (text: string, values: unknown[] = []) => {
        // The pause statement sends its own notice (to hand back jobs claimed ahead) and succeeds.
        if (/INSERT INTO .*queue/is.test(text)) {
          paused = values.includes(true);
          return Promise.resolve({ rows: [{ name: 'mail', paused, noticed: paused ? '' : null }], rowCount: 1 });
        }
        if (/pg_notify|NOTIFY/i.test(text)) return Promise.reject(new Error('the notice failed'));
        summaryReads++;
        const row = { queue: 'mail', status: null, count: 0, oldest_ready: null, ready: 0, paused, now: new Date() };
        return Promise.resolve({ rows: [row], rowCount: 1 });
      },
    },
  } as unknown as ConveyorDatabase;
  return { db, reads: () => summaryReads };
}

describe('QueuesService', () => {
  it('shows a resume on its next look even when waking the workers fails after the resume committed', async () => {
    const { db, reads } = database();
    const queues = new QueuesService(db);
    await queues.setPaused('mail', true);
    expect((await queues.summaries())[0].paused).toBe(true);
    await expect(queues.setPaused('mail', false)).rejects.toThrow('the notice failed');
    expect((await queues.summaries())[0].paused).toBe(false);
    expect(reads()).toBe(2);
  });
});
