import { createJobsMigration } from './0001-create-jobs.migration';
import { claimableFunctionsMigration } from './0002-claimable-functions.migration';
import { uniqueKeysAndSchedulesMigration } from './0003-unique-keys-and-schedules.migration';
import { timeOrderedIdsMigration } from './0004-time-ordered-ids.migration';
import { pageByIdMigration } from './0005-page-by-id.migration';
import { pausedQueuesIndexMigration } from './0006-paused-queues-index.migration';
import { quietOwnInsertsMigration } from './0007-quiet-own-inserts.migration';
import { leadershipLeaseMigration } from './0008-leadership-lease.migration';
import { Migration } from './migration.interface';

/** Every migration, in order. Append only: an applied migration is never edited. */
export const MIGRATIONS: readonly Migration[] = [
  createJobsMigration,
  claimableFunctionsMigration,
  uniqueKeysAndSchedulesMigration,
  timeOrderedIdsMigration,
  pageByIdMigration,
  pausedQueuesIndexMigration,
  quietOwnInsertsMigration,
  leadershipLeaseMigration,
];
