import type { DataSource } from 'typeorm';
import { JobValidationError } from '../../errors/job-request.errors';
import { MESSAGES } from '../../errors/conveyor.messages';
import { SqlRunner } from './sql-runner.interface';
import { SqlTables } from './sql-tables';

/**
 * What tells one database apart from every other: its name, when the server running it started and the oid of its
 * jobs table ($1; `-` when it has none). Servers set up alike can repeat a name and an oid, never a start time to the
 * microsecond; read as epoch seconds, it does not depend on the session's TimeZone.
 */
const DATABASE_IDENTITY_SQL = `SELECT concat_ws(' ', current_database(), extract(epoch FROM pg_postmaster_start_time())::text,
  coalesce(to_regclass($1)::oid::text, '-')) AS identity`;

/**
 * Which DataSources of callers' managers reach Conveyor's own database. A manager of Conveyor's DataSource does; one
 * of another DataSource may (its own pool or schema on the same database, a legitimate set-up) or may not: the
 * statements name Conveyor's tables by schema, not by database, so on another database that holds tables of that
 * name they would store the job there, out of sight of Conveyor's workers, and answer as if it were queued. Before a
 * statement of another DataSource's manager, the database it reaches (read in the caller's transaction) is compared
 * with Conveyor's (read on the pool), until that DataSource is once found on Conveyor's.
 */
export class CallerDatabases {
  private readonly confirmed = new WeakSet<DataSource>();

  constructor(
    private readonly ours: SqlRunner,
    private readonly tables: SqlTables,
  ) {}

  /** Resolves when `dataSource` (read through `theirs`) is Conveyor's database; JobValidationError naming `manager` if not. */
  async refuseAnother(dataSource: DataSource, theirs: SqlRunner): Promise<void> {
    if (this.confirmed.has(dataSource)) return;
    const [their, our] = await Promise.all([this.identity(theirs), this.identity(this.ours)]);
    if (their !== our) {
      throw new JobValidationError(MESSAGES.managerOfAnotherDatabase, [
        { field: 'manager', problems: ['belongs to a DataSource on another database than Conveyor’s'] },
      ]);
    }
    this.confirmed.add(dataSource);
  }

  private async identity(runner: SqlRunner): Promise<string> {
    const { rows } = await runner.query<{ identity: string }>(DATABASE_IDENTITY_SQL, [this.tables.jobs]);
    return rows[0].identity;
  }
}
