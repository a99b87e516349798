import { Migration } from './migration.interface';

/**
 * Live events and job progress (observation/live).
 *
 * - `conveyor_jobs.progress`: what the running attempt last reported (a percentage and/or a small JSON object),
 *   null until it reports. No index: it is read with its row.
 * - `conveyor_live_watch`: a row per instance that serves live-event subscribers, held as a lease until
 *   `expires_at` (by the database's clock). Writers announce their changes with a NOTIFY only while some lease
 *   is current, so a database nobody watches pays nothing for live events.
 */
export const liveMigration: Migration = {
  id: 2,
  name: 'live',
  up: ({ jobs, liveWatch }) => `
ALTER TABLE ${jobs} ADD COLUMN progress jsonb;

CREATE TABLE ${liveWatch} (
  holder     text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
`,
};
