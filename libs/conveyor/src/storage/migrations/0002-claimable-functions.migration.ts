import { claimableFunctionsDdl } from '../statements/claimable-functions.sql';
import { Migration } from './migration.interface';

/**
 * The claim's index walk as functions with their own planner settings (see claimable-functions.sql.ts),
 * and autovacuum settings for a queue table: it churns through its rows, so dead tuples and statistics are
 * looked after at 1% of changes instead of PostgreSQL's default 10–20%.
 */
export const claimableFunctionsMigration: Migration = {
  id: 2,
  name: 'claimable-functions',
  up: ({ schema, jobs, queues }) => `
${claimableFunctionsDdl(schema, jobs, queues)}
ALTER TABLE ${jobs} SET (
  autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
  autovacuum_analyze_scale_factor = 0.01, autovacuum_analyze_threshold = 1000,
  fillfactor = 90
);
`,
};
