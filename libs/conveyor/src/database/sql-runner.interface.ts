/** Result of one statement. */
export interface SqlResult<R> {
  rows: R[];
  rowCount: number;
}

/**
 * Anything that runs one parameterised statement: the shared pool, or a caller's transaction.
 * `name` makes pg prepare the statement once per connection (used on the hot path).
 */
export interface SqlRunner {
  query<R = Record<string, unknown>>(text: string, values?: unknown[], name?: string): Promise<SqlResult<R>>;
}
