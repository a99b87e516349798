/** One parameterised statement, as pg takes it. */
export interface FloorStatement {
  name?: string;
  text: string;
  values: unknown[];
}

/** Escaped names of the table the floor works on in one schema, and of its objects. */
export interface FloorNames {
  schema: string;
  jobs: string;
  /** The channel its inserts notify, as a quoted identifier (for LISTEN). */
  channel: string;
}

/** Every statement the floor sends, written for one table. */
export interface FloorTableSql {
  /** The table, its indexes and an insert trigger that notifies `channel` once per statement. */
  create(): string;
  /** One multi-row INSERT of these payloads. */
  insertMany(payloads: unknown[]): FloorStatement;
  /** Claims up to `limit` due jobs, skipping rows another worker is claiming. */
  claim(limit: number): FloorStatement;
  /** Marks a batch of finished jobs done. */
  complete(ids: string[]): FloorStatement;
  /** `rows` jobs in one statement: pending (due now) or finished a day ago. */
  insertRows(rows: number, state: 'pending' | 'finished'): FloorStatement;
  /** How many rows there are, and how many are done. */
  counts(): FloorStatement;
}
