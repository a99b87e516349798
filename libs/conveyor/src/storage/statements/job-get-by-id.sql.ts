import { JOB_COLUMNS, SqlTables, Statement } from './statement';

/** One job by id. */
export function jobGetById(t: SqlTables, id: string): Statement {
  return { name: `job_get_${t.key}`, text: `SELECT ${JOB_COLUMNS} FROM ${t.jobs} WHERE id = $1`, values: [id] };
}
