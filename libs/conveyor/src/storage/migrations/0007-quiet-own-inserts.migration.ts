import { ANNOUNCE_DEFERRED, ANNOUNCE_SETTING } from '../statements/quiet-insert';
import { Migration } from './migration.interface';

/**
 * The insert trigger does not fire for a quiet insert (sql/quiet-insert.ts): one whose instance claims the new
 * jobs itself, with the claim sent right behind the insert (LocalPickup). Every NOTIFY wakes every listening
 * backend of the database, the inserting instance's own listener among them; on a small machine that wake-up
 * ran beside the very claim it announced. A WHEN condition rather than a test inside the function: a quiet insert
 * then calls no PL/pgSQL at all. `current_setting(…, true)` reads NULL where the setting was never set.
 */
export const quietOwnInsertsMigration: Migration = {
  id: 7,
  name: 'quiet-own-inserts',
  up: ({ schema, jobs, channelLiteral }) => `
DROP TRIGGER conveyor_jobs_notify_inserted ON ${jobs};
CREATE TRIGGER conveyor_jobs_notify_inserted
  AFTER INSERT ON ${jobs}
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT
  WHEN (current_setting('${ANNOUNCE_SETTING}', true) IS DISTINCT FROM '${ANNOUNCE_DEFERRED}')
  EXECUTE FUNCTION ${schema}.conveyor_notify_inserted(${channelLiteral});
`,
};
