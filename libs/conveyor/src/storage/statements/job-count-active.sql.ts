import { SqlTables, Statement } from './statement';

/** Counts of the non-completed states (served by the status index, so cheap on a large table). */
export function jobCountActive(t: SqlTables): Statement {
  return {
    text: `
SELECT s.status, (SELECT count(*) FROM ${t.jobs} j WHERE j.status = s.status)::int AS count
FROM unnest(ARRAY['SCHEDULED','PENDING','RUNNING','RETRYING','DEAD']) AS s(status)`,
    values: [],
  };
}
