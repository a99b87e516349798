import type { DataSource } from 'typeorm';
import { JobValidationError } from '../../errors/job-request.errors';
import { MESSAGES } from '../../errors/conveyor.messages';
import { SqlRunner } from './sql-runner.interface';
import { SqlTables } from './sql-tables';

/**
 * What tells one database apart from every other: its name, when the server running it started and the oid of its
 * jobs table ($1; `-` when it has none). Servers set up alike can repeat a name and an oid, never a start time to the
 * microsecond; read as epoch seconds, it does not depend on the session's TimeZone. Beside it, whether the session
 * writes timestamps in ISO style (session-formats.ts).
 */
const DATABASE_IDENTITY_SQL = `SELECT concat_ws(' ', current_database(), extract(epoch FROM pg_postmaster_start_time())::text,
  coalesce(to_regclass($1)::oid::text, '-')) AS identity, current_setting('DateStyle') LIKE 'ISO%' AS iso_dates`;

/** What the engine knows of the sessions of another DataSource on its database. */
export interface CallerSessions {
  /**
   * Whether they write timestamps in ISO style, the only one the engine reads (session-formats.ts). The engine sets
   * it on its own DataSource's sessions; another DataSource's keep what its role, database or URL says.
   */
  isoDates: boolean;
}

/**
 * Which DataSources of callers' managers reach Conveyor's own database. A manager of Conveyor's DataSource does; one
 * of another DataSource may (its own pool or schema on the same database, a legitimate set-up) or may not: the
 * statements name Conveyor's tables by schema, not by database, so on another database that holds tables of that
 * name they would store the job there, out of sight of Conveyor's workers, and answer as if it were queued. Before a
 * statement of another DataSource's manager, the database it reaches (read in the caller's transaction) is compared
 * with Conveyor's (read on the pool), until that DataSource is once found on Conveyor's.
 */
export class CallerDatabases {
  private readonly confirmed = new WeakMap<DataSource, CallerSessions>();

  constructor(
    private readonly ours: SqlRunner,
    private readonly tables: SqlTables,
  ) {}

  /**
   * What `dataSource`'s sessions are like, once it is found on Conveyor's database (read through `theirs`);
   * JobValidationError naming `manager` if it is on another.
   */
  async refuseAnother(dataSource: DataSource, theirs: SqlRunner): Promise<CallerSessions> {
    const known = this.confirmed.get(dataSource);
    if (known) return known;
    const [their, our] = await Promise.all([this.identity(theirs), this.identity(this.ours)]);
    if (their.identity !== our.identity) {
      throw new JobValidationError(MESSAGES.managerOfAnotherDatabase, [
        { field: 'manager', problems: ['belongs to a DataSource on another database than Conveyor’s'] },
      ]);
    }
    const sessions = { isoDates: their.iso_dates };
    this.confirmed.set(dataSource, sessions);
    return sessions;
  }

  private async identity(runner: SqlRunner): Promise<{ identity: string; iso_dates: boolean }> {
    const { rows } = await runner.query<{ identity: string; iso_dates: boolean }>(DATABASE_IDENTITY_SQL, [this.tables.jobs]);
    return rows[0];
  }
}

/**
 * Runs `statement` in the caller's transaction with timestamps written in ISO style, then puts back the DateStyle the
 * transaction had. The setting is the transaction's own (`set_config(…, true)`): the session keeps its style after
 * the transaction, and the caller's later statements in it read what they read before. A failed statement leaves the
 * transaction aborted (or rolls its savepoint back, setting and all): nothing to put back.
 */
export async function inIsoDateStyle<T>(theirs: SqlRunner, statement: () => Promise<T>): Promise<T> {
  const { rows } = await theirs.query<{ was: string }>(`SELECT current_setting('DateStyle') AS was, set_config('DateStyle', 'ISO', true)`);
  const result = await statement();
  await theirs.query(`SELECT set_config('DateStyle', $1, true)`, [rows[0].was]);
  return result;
}
