-- Conveyor's schema as PostgreSQL reports it after every migration has run: read from the catalogs of a freshly
-- migrated schema by test/support/schema-snapshot.ts. Do not edit; regenerate with `npm run schema:snapshot`
-- (test/engine/schema-snapshot.e2e-spec.ts fails when the migrations and this file disagree).
-- {schema} stands for the schema Conveyor runs in (the DataSource's schema).

-- Migrations applied ({schema}.conveyor_migrations):
--   0001 baseline
--   0002 live
--   0003 schedule-control-and-instances
--   0004 notify-due-bound
--   0005 notify-due-times

CREATE OR REPLACE FUNCTION {schema}.conveyor_notify_inserted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
      ORDER BY at LIMIT 100
    ) due;
    IF later IS NOT NULL THEN
      notice := notice || ',' || later;
    END IF;
  END IF;
  PERFORM pg_notify(TG_ARGV[0], notice);
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION {schema}.conveyor_uuid_v7()
 RETURNS uuid
 LANGUAGE sql
 PARALLEL SAFE
AS $function$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
              PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
              FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$function$;

CREATE TABLE {schema}.conveyor_instances (
  id           text NOT NULL,
  host         text NOT NULL,
  pid          integer NOT NULL,
  version      text NOT NULL,
  runs_workers boolean NOT NULL,
  concurrency  integer NOT NULL,
  running      integer NOT NULL,
  queues       text[] NOT NULL,
  types        text[] NOT NULL,
  started_at   timestamp with time zone NOT NULL,
  last_seen    timestamp with time zone NOT NULL,
  expires_at   timestamp with time zone NOT NULL,
  CONSTRAINT conveyor_instances_pkey PRIMARY KEY (id)
);

CREATE TABLE {schema}.conveyor_jobs (
  id               uuid DEFAULT {schema}.conveyor_uuid_v7() NOT NULL,
  seq              bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  queue            text DEFAULT 'default'::text NOT NULL,
  type             text NOT NULL,
  payload          jsonb DEFAULT '{}'::jsonb NOT NULL,
  status           text DEFAULT 'PENDING'::text NOT NULL,
  priority         integer DEFAULT 0 NOT NULL,
  run_at           timestamp with time zone DEFAULT now() NOT NULL,
  attempts         integer DEFAULT 0 NOT NULL,
  max_attempts     integer DEFAULT 5 NOT NULL,
  snoozes          integer DEFAULT 0 NOT NULL,
  last_error       text,
  result           jsonb,
  errors           jsonb DEFAULT '[]'::jsonb NOT NULL,
  idempotency_key  text,
  idempotency_hash text,
  locked_by        text,
  locked_until     timestamp with time zone,
  lease_token      uuid,
  version          integer DEFAULT 1 NOT NULL,
  created_at       timestamp with time zone DEFAULT now() NOT NULL,
  updated_at       timestamp with time zone DEFAULT now() NOT NULL,
  started_at       timestamp with time zone,
  finished_at      timestamp with time zone,
  unique_key       text,
  progress         jsonb,
  CONSTRAINT conveyor_jobs_max_attempts_check CHECK ((max_attempts >= 1)),
  CONSTRAINT conveyor_jobs_pkey PRIMARY KEY (id),
  CONSTRAINT conveyor_jobs_status_check CHECK ((status = ANY (ARRAY['SCHEDULED'::text, 'PENDING'::text, 'RUNNING'::text, 'RETRYING'::text, 'COMPLETED'::text, 'DEAD'::text, 'CANCELLED'::text])))
) WITH (autovacuum_analyze_scale_factor=0.01, autovacuum_analyze_threshold=1000, autovacuum_vacuum_scale_factor=0.01, autovacuum_vacuum_threshold=1000, fillfactor=90);
CREATE INDEX conveyor_jobs_attention ON {schema}.conveyor_jobs USING btree (status, id) WHERE (status = ANY (ARRAY['DEAD'::text, 'CANCELLED'::text, 'RETRYING'::text]));
CREATE INDEX conveyor_jobs_claimable ON {schema}.conveyor_jobs USING btree (priority, run_at) WHERE (status = ANY (ARRAY['SCHEDULED'::text, 'PENDING'::text, 'RETRYING'::text]));
CREATE INDEX conveyor_jobs_completed_finished ON {schema}.conveyor_jobs USING btree (finished_at) WHERE (status = 'COMPLETED'::text);
CREATE UNIQUE INDEX conveyor_jobs_idempotency_key ON {schema}.conveyor_jobs USING btree (idempotency_key) WHERE (idempotency_key IS NOT NULL);
CREATE INDEX conveyor_jobs_lease ON {schema}.conveyor_jobs USING btree (locked_until) WHERE (status = 'RUNNING'::text);
CREATE UNIQUE INDEX conveyor_jobs_unique_key ON {schema}.conveyor_jobs USING btree (type, unique_key) WHERE ((unique_key IS NOT NULL) AND (status = ANY (ARRAY['SCHEDULED'::text, 'PENDING'::text, 'RETRYING'::text, 'RUNNING'::text])));
CREATE TRIGGER conveyor_jobs_notify_inserted AFTER INSERT ON {schema}.conveyor_jobs REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT WHEN ((current_setting('conveyor.announce'::text, true) IS DISTINCT FROM 'deferred'::text)) EXECUTE FUNCTION {schema}.conveyor_notify_inserted('conveyor:{schema}');

CREATE TABLE {schema}.conveyor_leadership (
  name       text NOT NULL,
  holder     text NOT NULL,
  term       bigint NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT conveyor_leadership_pkey PRIMARY KEY (name)
);

CREATE TABLE {schema}.conveyor_live_watch (
  holder     text NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT conveyor_live_watch_pkey PRIMARY KEY (holder)
);

CREATE TABLE {schema}.conveyor_migrations (
  id         integer NOT NULL,
  name       text NOT NULL,
  applied_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT conveyor_migrations_pkey PRIMARY KEY (id)
);

CREATE TABLE {schema}.conveyor_queues (
  name       text NOT NULL,
  paused     boolean DEFAULT false NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT conveyor_queues_pkey PRIMARY KEY (name)
);
CREATE INDEX conveyor_queues_paused ON {schema}.conveyor_queues USING btree (name) WHERE paused;

CREATE TABLE {schema}.conveyor_schedules (
  name          text NOT NULL,
  cron          text NOT NULL,
  last_tick     timestamp with time zone NOT NULL,
  updated_at    timestamp with time zone DEFAULT now() NOT NULL,
  paused        boolean DEFAULT false NOT NULL,
  paused_at     timestamp with time zone,
  enqueued_tick timestamp with time zone,
  CONSTRAINT conveyor_schedules_pkey PRIMARY KEY (name)
);
