import { JOB_COLUMNS, SqlTables, Statement } from './statement';

/** The jobs holding these idempotency keys, with the request hash they were created with. */
export function jobGetByIdempotencyKeys(t: SqlTables, keys: string[]): Statement {
  return {
    text: `SELECT ${JOB_COLUMNS}, idempotency_hash FROM ${t.jobs} WHERE idempotency_key = ANY($1::text[])`,
    values: [keys],
  };
}
