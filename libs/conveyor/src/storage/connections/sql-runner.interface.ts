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

/** How one statement is sent. */
export interface QueryOptions {
  /** Makes pg prepare the statement once per connection (used on the hot path). */
  name?: string;
  /** pg's `rowMode`. */
  rowMode?: RowMode;
  /**
   * Longest the statement may go unanswered, in ms, before its connection is abandoned (destroyed, not
   * reused) and the statement fails as a connection error. Runners the engine owns default to
   * {@link STATEMENT_DEADLINE_MS}; a caller's own transaction is never cut.
   */
  deadlineMs?: number;
}

/**
 * Deadline of the engine's ordinary statements (claims, outcome writes, heartbeats, inserts, reads by key), before
 * what the statement carries (`carriageMs`: a result or payload of many MB takes the database seconds to store) and,
 * on the pipelined worker connection, what the statements sent before it carry.
 *
 * On a network that silently drops packets a statement in flight is not failed by TCP for minutes, and its
 * connection stays checked out meanwhile. A statement sent `x` ms before the network heals is retransmitted
 * at most about `x` ms after it heals (TCP's back-off doubles) and abandoned `deadline - x` ms after, so no
 * statement holds on for more than half its deadline once the network is back.
 */
export const STATEMENT_DEADLINE_MS = 5000;

/** Deadline of statements whose work grows with the table or the request (searches, bulk updates, retention). */
export const LONG_STATEMENT_DEADLINE_MS = 60_000;

/** Anything that runs one parameterised statement: the shared pool, or a caller's transaction. */
export interface SqlRunner {
  query<R = Record<string, unknown>>(text: string, values?: unknown[], options?: QueryOptions): Promise<SqlResult<R>>;
  /**
   * Set on a runner of a caller's own transaction (ConveyorDatabase.runnerFor), which may have been open for long
   * before a statement: its `now()`, the transaction's start, can be far behind the statement's.
   */
  readonly inCallerTransaction?: boolean;
}
