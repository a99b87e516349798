import { Migration } from './migration.interface';

/**
 * Schedule control and the instance registry.
 *
 * `conveyor_schedules` gains `paused` (a paused schedule enqueues no ticks; every instance's timekeeper reads it
 * under the row lock it already takes), `paused_at`, and `enqueued_tick`: the newest tick for which a job was
 * enqueued. `last_tick` stays the schedule's progress mark, which registration and resuming move to "now" without
 * enqueueing anything; `enqueued_tick` is what the API shows as the last tick. Instances of the previous release
 * ignore the new columns (they do not honour a pause) and leave `enqueued_tick` as it was.
 *
 * `conveyor_instances`: a row per running instance, upserted on every maintenance round and deleted on a clean
 * shutdown. A row whose `expires_at` passed belongs to an instance that died; it is no longer listed, and the
 * leader's maintenance deletes it. The table holds one row per live instance, so it needs no index beyond its key.
 */
export const scheduleControlAndInstancesMigration: Migration = {
  id: 3,
  name: 'schedule-control-and-instances',
  up: ({ schema }) => `
ALTER TABLE ${schema}.conveyor_schedules
  ADD COLUMN paused        boolean NOT NULL DEFAULT false,
  ADD COLUMN paused_at     timestamptz,
  ADD COLUMN enqueued_tick timestamptz;

CREATE TABLE ${schema}.conveyor_instances (
  id           text PRIMARY KEY,
  host         text NOT NULL,
  pid          integer NOT NULL,
  version      text NOT NULL,
  runs_workers boolean NOT NULL,
  concurrency  integer NOT NULL,
  running      integer NOT NULL,
  queues       text[] NOT NULL,
  types        text[] NOT NULL,
  started_at   timestamptz NOT NULL,
  last_seen    timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL
);
`,
};
