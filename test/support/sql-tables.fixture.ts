import type { SqlTables } from '@conveyor/core/storage/connections/sql-tables';

/**
 * Table names for unit specs whose statements reach no database (a fake runner answers them): schema `s`. Kept
 * here, not beside the specs, because the packages ship every non-spec file of their source folders.
 */
export const SPEC_TABLES: SqlTables = {
  schema: '"s"',
  jobs: '"s"."conveyor_jobs"',
  queues: '"s"."conveyor_queues"',
  leadership: '"s"."conveyor_leadership"',
  liveWatch: '"s"."conveyor_live_watch"',
  migrations: '"s"."conveyor_migrations"',
  key: 's',
};
