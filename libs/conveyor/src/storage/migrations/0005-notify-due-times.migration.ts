import { MAX_ANNOUNCED_DUE_TIMES, READY_NOTICE_PREFIX } from '../statements/due-notice.codec';
import { Migration } from './migration.interface';

/**
 * The insert NOTIFY announces every due time of the statement's scheduled rows (statements/due-notice.codec.ts), not
 * only its earliest: the jobs of one `enqueueMany` or batch due at different times each wake a listener's due timer
 * when due. Before, only the statement's earliest run_at was announced (and nothing of its scheduled rows when some
 * were due at once), so the later ones waited for the fallback poll.
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
    ELSE '${READY_NOTICE_PREFIX}' || floor(extract(epoch FROM next_run) * 1000)::bigint::text END;
  IF last_run > next_run AND last_run > now() THEN
    SELECT string_agg(due.at::text, ',' ORDER BY due.at) INTO later FROM (
      SELECT DISTINCT ceil(extract(epoch FROM run_at) * 1000)::bigint AS at FROM inserted
      WHERE status IN ('SCHEDULED','PENDING','RETRYING') AND run_at > now() AND run_at > next_run
      ORDER BY at LIMIT ${MAX_ANNOUNCED_DUE_TIMES}
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
