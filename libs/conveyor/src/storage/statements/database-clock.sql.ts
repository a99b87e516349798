import { CLOCK_MS_SQL, Statement } from './statement';

/**
 * The database's clock: the current transaction's start (`now()`, what inserts compare run_at with) and this moment,
 * in epoch ms with its fraction (for DatabaseClock).
 */
export function databaseClock(): Statement {
  return { text: `SELECT now() AS tx_now, ${CLOCK_MS_SQL} AS now_ms`, values: [] };
}
