import { Migration } from './migration.interface';

/** Due times the notice lists after its first: MAX_ANNOUNCED_DUE_TIMES, written here as this migration's own. */
export const NOTIFIED_DUE_TIMES_LIMIT = 100;

/**
 * The insert NOTIFY announces every due time of the statement's scheduled rows (statements/due-notice.codec.ts), up
 * to a limit: the jobs of one `enqueueMany` or batch due at different times each wake a listener's due timer when due.
 *
 * The first time keeps its form and meaning (migration 0004), so instances pair it with their own insert as before.
 * Only a statement whose rows are due at different times, some later, pays for the second read of its rows: the
 * first read finds that out, and a statement of jobs all due at once (a bulk enqueue) reads its rows once, as before.
 * An instance of the previous release cannot read a list, and claims at once.
 */
export const notifyDueTimesMigration: Migration = {
  id: 5,
  name: 'notify-due-times',
  up: ({ schema }) => `
CREATE OR REPLACE FUNCTION ${schema}.conveyor_notify_inserted() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  next_run timestamptz;
  last_run timestamptz;
  notice text;
  later text;
BEGIN
  SELECT min(run_at), max(run_at) INTO next_run, last_run FROM inserted WHERE status IN ('SCHEDULED','PENDING','RETRYING');
  IF next_run IS NULL THEN
    RETURN NULL;
  END IF;
  notice := CASE WHEN next_run > now()
    THEN ceil(extract(epoch FROM next_run) * 1000)::bigint::text
    ELSE 'ready:' || floor(extract(epoch FROM next_run) * 1000)::bigint::text END;
  IF last_run > next_run AND last_run > now() THEN
    SELECT string_agg(due.at::text, ',' ORDER BY due.at) INTO later FROM (
      SELECT DISTINCT ceil(extract(epoch FROM run_at) * 1000)::bigint AS at FROM inserted
      WHERE status IN ('SCHEDULED','PENDING','RETRYING') AND run_at > now() AND run_at > next_run
      ORDER BY at LIMIT ${NOTIFIED_DUE_TIMES_LIMIT}
    ) due;
    IF later IS NOT NULL THEN
      notice := notice || ',' || later;
    END IF;
  END IF;
  PERFORM pg_notify(TG_ARGV[0], notice);
  RETURN NULL;
END
$fn$;
`,
};
