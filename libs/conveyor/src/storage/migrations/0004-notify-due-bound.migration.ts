import { READY_NOTICE_PREFIX } from '../statements/due-notice.codec';
import { Migration } from './migration.interface';

/**
 * The insert NOTIFY's payload says when a claim sees the rows it announces (statements/due-notice.codec.ts):
 *
 * - rows due at once are announced as `ready:<ms>`: they are due when the insert commits, before anyone hears of
 *   them, so a listener claims without arming a timer, whatever its estimate of the database's clock;
 * - a scheduled row is announced with its `run_at` rounded up to the millisecond, so a claim sent once that
 *   millisecond has come sees it (rounded to the nearest, the payload could name a time half a millisecond before
 *   the row was due, and a claim sent then missed it and left it to the fallback poll).
 *
 * An instance of the previous release reads a scheduled row's payload as before; it cannot read `ready:`, and claims
 * at once (for its own inserts of jobs due at once, a second claim: it no longer pairs them with their NOTIFY).
 */
export const notifyDueBoundMigration: Migration = {
  id: 4,
  name: 'notify-due-bound',
  up: ({ schema }) => `
CREATE OR REPLACE FUNCTION ${schema}.conveyor_notify_inserted() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE next_run timestamptz;
BEGIN
  SELECT min(run_at) INTO next_run FROM inserted WHERE status IN ('SCHEDULED','PENDING','RETRYING');
  IF next_run IS NOT NULL THEN
    PERFORM pg_notify(TG_ARGV[0], CASE WHEN next_run > now()
      THEN ceil(extract(epoch FROM next_run) * 1000)::bigint::text
      ELSE '${READY_NOTICE_PREFIX}' || floor(extract(epoch FROM next_run) * 1000)::bigint::text END);
  END IF;
  RETURN NULL;
END
$fn$;
`,
};
