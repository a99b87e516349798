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

/** `'array'`: rows come back as arrays of their columns, in order (pg's `rowMode`). */
export type RowMode = 'array';

/**
 * Anything that runs one parameterised statement: the shared pool, or a caller's transaction.
 * `name` makes pg prepare the statement once per connection (used on the hot path); `rowMode` is pg's.
 */
export interface SqlRunner {
  query<R = Record<string, unknown>>(text: string, values?: unknown[], name?: string, rowMode?: RowMode): Promise<SqlResult<R>>;
}
