import { createJobsMigration } from './0001-create-jobs.migration';
import { Migration } from './migration.interface';

/** Every migration, in order. Append only: an applied migration is never edited. */
export const MIGRATIONS: readonly Migration[] = [createJobsMigration];
