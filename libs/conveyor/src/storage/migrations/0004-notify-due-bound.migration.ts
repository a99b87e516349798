import { Migration } from './migration.interface';

/**
 * The insert NOTIFY's payload becomes a time a worker can claim against. A claim sees a row once the database's
 * `now()` has reached its `run_at`, and a worker compares due times with its own clock in whole milliseconds:
 *
 * - a row due after the insert's `now()` (scheduled) announces its `run_at` rounded up to the millisecond, so a
 *   claim sent once that millisecond has come sees it (rounded to the nearest, the payload could name a time half
 *   a millisecond before the row was due, and a claim sent then missed it and left it to the fallback poll);
 * - a row due at once announces its `run_at` rounded down: it is due when the insert commits, before anyone hears
 *   of it, so no worker arms a timer for it.
 *
 * Instances of the previous release read the payload as before (epoch ms) and pair it with their own inserts as
 * before (the two differ by at most a millisecond).
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
    PERFORM pg_notify(TG_ARGV[0], (CASE WHEN next_run > now()
      THEN ceil(extract(epoch FROM next_run) * 1000)
      ELSE floor(extract(epoch FROM next_run) * 1000) END)::bigint::text);
  END IF;
  RETURN NULL;
END
$fn$;
`,
};
