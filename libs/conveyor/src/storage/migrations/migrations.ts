import { baselineMigration } from './0001-baseline.migration';
import { liveMigration } from './0002-live.migration';
import { scheduleControlAndInstancesMigration } from './0003-schedule-control-and-instances.migration';
import { notifyDueBoundMigration } from './0004-notify-due-bound.migration';
import { notifyDueTimesMigration } from './0005-notify-due-times.migration';
import { Migration } from './migration.interface';

/**
 * Every migration, in order. 0001 is the baseline: the whole schema of 0.1.0, the first release. From here on a
 * change to the schema is a new migration appended here, additive (it must not break instances of the previous
 * release, which keep running during a rolling upgrade), and `npm run schema:snapshot` updates ../schema.sql.
 * An applied migration is never edited.
 */
export const MIGRATIONS: readonly Migration[] = [
  baselineMigration,
  liveMigration,
  scheduleControlAndInstancesMigration,
  notifyDueBoundMigration,
  notifyDueTimesMigration,
];
