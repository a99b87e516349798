import { Migration } from './migration.interface';

/**
 * Unique jobs and cron schedules.
 *
 * - `unique_key`: at most one waiting or running job per (type, unique_key). The index is partial on the
 *   states that count, so a job that finished (COMPLETED, DEAD, CANCELLED) frees its key at once, and rows
 *   without a key (nearly all) add no index entry at all. Being a unique index, it holds under any
 *   concurrency: two submissions racing for one key cannot both insert.
 * - `conveyor_schedules`: per cron schedule, the newest tick already enqueued. Every instance's timekeeper
 *   locks these rows before enqueueing, so a tick is enqueued once and a restart resumes where it stopped.
 */
export const uniqueKeysAndSchedulesMigration: Migration = {
  id: 3,
  name: 'unique-keys-and-schedules',
  up: ({ schema, jobs }) => `
ALTER TABLE ${jobs} ADD COLUMN unique_key text;
CREATE UNIQUE INDEX conveyor_jobs_unique_key ON ${jobs} (type, unique_key)
  WHERE unique_key IS NOT NULL AND status IN ('SCHEDULED','PENDING','RETRYING','RUNNING');

CREATE TABLE ${schema}.conveyor_schedules (
  name       text PRIMARY KEY,
  cron       text NOT NULL,
  last_tick  timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`,
};
