import { ANNOUNCE_DEFERRED, ANNOUNCE_SETTING } from '../statements/quiet-insert';
import { Migration } from './migration.interface';

/**
 * The schema of Conveyor 0.1.0, created in one step; ../schema.sql shows it as PostgreSQL reports it.
 *
 * `conveyor_jobs`:
 * - Ids are time-ordered UUIDs (version 7: 48 bits of Unix milliseconds, then random bits), so a job's
 *   primary-key entry lands beside its neighbours in time: jobs are inserted, claimed and finished roughly in id
 *   order, and touch a few pages at the right edge of the index instead of random leaf pages. The engine makes
 *   its ids itself (job/job-id.ts); `conveyor_uuid_v7()` is the column default for rows inserted by hand.
 *   PostgreSQL before 18 has no uuidv7(): this one sets the timestamp over gen_random_uuid()'s first 48 bits and
 *   turns its version nibble from 4 into 7 (bits 52 and 53). Ids also order the job list (newest first).
 * - Every change of status is a non-HOT update (status is in the partial indexes' predicates), and a non-HOT
 *   update adds an entry for the new row version to every full index. So the primary key is the only full index;
 *   every other index is partial, holding only rows in the states it serves, and costs a claim or a completion
 *   nothing for rows outside them. `seq` numbers insertions for the API and has no index.
 * - `conveyor_jobs_claimable` serves the claim: partial on the claimable states, in the claim's ORDER BY
 *   (priority, run_at), so a claim reads only the head of the index however many finished rows the table holds.
 * - `conveyor_jobs_unique_key`: at most one waiting or running job per (type, unique_key). Partial on the states
 *   that count, so a job that finished frees its key at once and rows without a key add no entry. Being a unique
 *   index, it holds under any concurrency: two submissions racing for one key cannot both insert.
 * - Autovacuum looks after dead rows and statistics at 1% of changes instead of PostgreSQL's default 10–20%: a
 *   queue churns through its rows. Fillfactor 90 leaves a tenth of each page free, so a row's next version (a
 *   job changes several times in its life) can often stay on its page.
 * - The NOTIFY trigger is per statement, not per row: a 1,000-row batch wakes workers once. Its payload is the
 *   earliest run_at inserted (epoch ms), so a worker can arm a timer for a scheduled job instead of polling.
 *   It does not fire for a quiet insert (statements/quiet-insert.ts), whose instance claims the new jobs itself:
 *   every NOTIFY wakes every listening backend of the database, the inserting instance's own listener among
 *   them. A WHEN condition rather than a test inside the function, so a quiet insert calls no PL/pgSQL at all;
 *   `current_setting(…, true)` reads NULL where the setting was never set.
 *
 * `conveyor_queues`: a row per queue ever paused or resumed. A claim reads the paused queues' names once per
 * statement (statements/claimable-select.ts); `conveyor_queues_paused` holds only paused queues, so that read is
 * an index-only scan of a handful of entries however many queues were ever configured.
 *
 * `conveyor_schedules`: per cron schedule, the newest tick already enqueued. Every instance's timekeeper locks
 * these rows before enqueueing, so a tick is enqueued once and a restart resumes where it stopped.
 *
 * `conveyor_leadership`: maintenance leadership as a lease, not a session advisory lock, whose session (a leader
 * cut off by a silent partition) lives until the server gives up on it, with no bound the engine controls. The
 * row says who leads, until when (by the database's clock) and in which term; every maintenance write checks it
 * in the same statement, so a former leader's late writes change nothing.
 */
export const baselineMigration: Migration = {
  id: 1,
  name: 'baseline',
  up: ({ schema, jobs, queues, leadership, channelLiteral }) => `
CREATE FUNCTION ${schema}.conveyor_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $fn$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
              PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
              FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$fn$;

CREATE TABLE ${jobs} (
  id               uuid PRIMARY KEY DEFAULT ${schema}.conveyor_uuid_v7(),
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
  finished_at      timestamptz,
  unique_key       text
) WITH (
  autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
  autovacuum_analyze_scale_factor = 0.01, autovacuum_analyze_threshold = 1000,
  fillfactor = 90
);

CREATE INDEX conveyor_jobs_claimable ON ${jobs} (priority, run_at) WHERE status IN ('SCHEDULED','PENDING','RETRYING');
CREATE INDEX conveyor_jobs_lease ON ${jobs} (locked_until) WHERE status = 'RUNNING';
CREATE INDEX conveyor_jobs_completed_finished ON ${jobs} (finished_at) WHERE status = 'COMPLETED';
CREATE INDEX conveyor_jobs_attention ON ${jobs} (status, id) WHERE status IN ('DEAD','CANCELLED','RETRYING');
CREATE UNIQUE INDEX conveyor_jobs_idempotency_key ON ${jobs} (idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE UNIQUE INDEX conveyor_jobs_unique_key ON ${jobs} (type, unique_key)
  WHERE unique_key IS NOT NULL AND status IN ('SCHEDULED','PENDING','RETRYING','RUNNING');

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
  FOR EACH STATEMENT
  WHEN (current_setting('${ANNOUNCE_SETTING}', true) IS DISTINCT FROM '${ANNOUNCE_DEFERRED}')
  EXECUTE FUNCTION ${schema}.conveyor_notify_inserted(${channelLiteral});

CREATE TABLE ${queues} (
  name       text PRIMARY KEY,
  paused     boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conveyor_queues_paused ON ${queues} (name) WHERE paused;

CREATE TABLE ${schema}.conveyor_schedules (
  name       text PRIMARY KEY,
  cron       text NOT NULL,
  last_tick  timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ${leadership} (
  name       text PRIMARY KEY,
  holder     text NOT NULL,
  term       bigint NOT NULL,
  expires_at timestamptz NOT NULL
);
`,
};
