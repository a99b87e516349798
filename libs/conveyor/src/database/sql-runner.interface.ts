/** Result of one statement. */
export interface SqlResult<R> {
  rows: R[];
  rowCount: number;
  /**
   * Set by the engine's pool runner only, whose statements each commit on their own: the server process
   * (backend pid) that ran and committed it. A NOTIFY the statement caused carries the same pid.
   */
  committedOn?: number;
}

/**
 * Anything that runs one parameterised statement: the shared pool, or a caller's transaction.
 * `name` makes pg prepare the statement once per connection (used on the hot path).
 */
export interface SqlRunner {
  query<R = Record<string, unknown>>(text: string, values?: unknown[], name?: string): Promise<SqlResult<R>>;
}
