import { Statement } from './statement';

/** The database's clock: the current transaction's start (`now()`, what inserts compare run_at with) and this moment. */
export function databaseClock(): Statement {
  return { text: 'SELECT now() AS tx_now, clock_timestamp() AS now', values: [] };
}
