import { Migration } from './migration.interface';

/**
 * The jobs table, its indexes and the insert notification.
 *
 * - `conveyor_jobs_claimable` serves the claim query: partial on the claimable states, in the claim's ORDER BY
 *   (priority, run_at), so a claim reads only the head of the index however many finished rows the table holds.
 * - Every change of status is a non-HOT update, and a non-HOT update adds an entry to every full index; so
 *   only two indexes are full (id, and seq for keyset paging). The rest are partial: an index entry is written
 *   only for rows in the states it serves (claimable, running, completed, or needing attention), which
 *   halves the index writes of a claim and a completion compared with one index per filter column.
 * - The NOTIFY trigger is per statement, not per row: a 1,000-row batch wakes workers once. Its payload is the
 *   earliest run_at inserted (epoch ms), so a worker can arm a timer for a scheduled job instead of polling.
 */
export const createJobsMigration: Migration = {
  id: 1,
  name: 'create-jobs',
  up: ({ schema, jobs, queues, channelLiteral }) => `
CREATE TABLE ${jobs} (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq              bigint GENERATED ALWAYS AS IDENTITY,
  queue            text NOT NULL DEFAULT 'default',
  type             text NOT NULL,
  payload          jsonb NOT NULL DEFAULT '{}'::jsonb,
  status           text NOT NULL DEFAULT 'PENDING'
                   CHECK (status IN ('SCHEDULED','PENDING','RUNNING','RETRYING','COMPLETED','DEAD','CANCELLED')),
  priority         integer NOT NULL DEFAULT 0,
  run_at           timestamptz NOT NULL DEFAULT now(),
  attempts         integer NOT NULL DEFAULT 0,
  max_attempts     integer NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
  snoozes          integer NOT NULL DEFAULT 0,
  last_error       text,
  result           jsonb,
  errors           jsonb NOT NULL DEFAULT '[]'::jsonb,
  idempotency_key  text,
  idempotency_hash text,
  locked_by        text,
  locked_until     timestamptz,
  lease_token      uuid,
  version          integer NOT NULL DEFAULT 1,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  finished_at      timestamptz
);

CREATE INDEX conveyor_jobs_seq ON ${jobs} (seq);
CREATE UNIQUE INDEX conveyor_jobs_idempotency_key ON ${jobs} (idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX conveyor_jobs_claimable ON ${jobs} (priority, run_at)
  WHERE status IN ('SCHEDULED','PENDING','RETRYING');
CREATE INDEX conveyor_jobs_lease ON ${jobs} (locked_until) WHERE status = 'RUNNING';
CREATE INDEX conveyor_jobs_completed_finished ON ${jobs} (finished_at) WHERE status = 'COMPLETED';
CREATE INDEX conveyor_jobs_attention ON ${jobs} (status, seq) WHERE status IN ('DEAD','CANCELLED','RETRYING');

CREATE TABLE ${queues} (
  name       text PRIMARY KEY,
  paused     boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION ${schema}.conveyor_notify_inserted() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE next_run timestamptz;
BEGIN
  SELECT min(run_at) INTO next_run FROM inserted WHERE status IN ('SCHEDULED','PENDING','RETRYING');
  IF next_run IS NOT NULL THEN
    PERFORM pg_notify(TG_ARGV[0], (extract(epoch FROM next_run) * 1000)::bigint::text);
  END IF;
  RETURN NULL;
END
$fn$;

CREATE TRIGGER conveyor_jobs_notify_inserted
  AFTER INSERT ON ${jobs}
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.conveyor_notify_inserted(${channelLiteral});
`,
};
