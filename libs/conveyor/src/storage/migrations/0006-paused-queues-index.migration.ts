import { Migration } from './migration.interface';

/**
 * An index of the paused queues. A claim reads the names of the paused queues once per statement (see
 * claimableSelect) instead of probing the queues table for each candidate row; this partial index holds
 * only paused queues, so that read is an index-only scan of a handful of entries, however many queues
 * were ever configured, and the claim's plan keeps clear of sequential scans.
 */
export const pausedQueuesIndexMigration: Migration = {
  id: 6,
  name: 'paused-queues-index',
  up: ({ queues }) => `
CREATE INDEX conveyor_queues_paused ON ${queues} (name) WHERE paused;
`,
};
