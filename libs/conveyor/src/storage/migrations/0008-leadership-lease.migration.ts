import { Migration } from './migration.interface';

/**
 * Maintenance leadership as a lease in a table rather than a session advisory lock: a lock lives as long as its
 * session, and the session of a leader cut off by a silent partition lives until the server gives up on it, with
 * no bound the engine controls. A row says who leads, until when (by the database's clock), and in which term;
 * every maintenance write checks the row in the same statement, so a former leader's late writes change nothing.
 */
export const leadershipLeaseMigration: Migration = {
  id: 8,
  name: 'leadership-lease',
  up: ({ leadership }) => `
CREATE TABLE ${leadership} (
  name text PRIMARY KEY,
  holder text NOT NULL,
  term bigint NOT NULL,
  expires_at timestamptz NOT NULL
);
`,
};
