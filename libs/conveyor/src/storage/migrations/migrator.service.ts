import { Injectable, Logger } from '@nestjs/common';
import { ConveyorDatabase } from '../connections/conveyor-database.service';
import { quoteIdent, quoteLiteral } from '../connections/quote';
import { QueryOptions } from '../connections/sql-runner.interface';
import { MIGRATIONS } from './migrations';

const NO_DEADLINE: QueryOptions = { deadlineMs: Infinity };

/**
 * Applies the checked-in migrations at start-up.
 *
 * Safe when several instances start at once: all of it runs in one transaction that first takes a
 * transaction-scoped advisory lock keyed on the schema, so the second instance waits, then finds
 * everything applied and does nothing. A failure rolls the whole step back.
 */
@Injectable()
export class MigratorService {
  private readonly logger = new Logger('Conveyor:Migrator');
  private applied = false;

  constructor(private readonly db: ConveyorDatabase) {}

  /** Highest migration id this build knows. */
  get latest(): number {
    return MIGRATIONS[MIGRATIONS.length - 1].id;
  }

  async migrate(): Promise<void> {
    const { schema } = this.db;
    const ctx = {
      schema: quoteIdent(schema),
      jobs: this.db.jobsTable,
      queues: this.db.queuesTable,
      leadership: this.db.tables.leadership,
      channelLiteral: quoteLiteral(this.db.channel),
    };
    await this.db.transaction(async (tx) => {
      // Another instance may be migrating (the lock waits for it), and a migration may take long: no deadline.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`conveyor-migrate:${schema}`], NO_DEADLINE);
      await tx.query(`CREATE SCHEMA IF NOT EXISTS ${ctx.schema}`);
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${this.db.migrationsTable} (
           id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await tx.query<{ id: number }>(`SELECT id FROM ${this.db.migrationsTable}`);
      const done = new Set(rows.map((r) => r.id));
      for (const m of MIGRATIONS) {
        if (done.has(m.id)) continue;
        await tx.query(m.up(ctx), [], NO_DEADLINE);
        await tx.query(`INSERT INTO ${this.db.migrationsTable} (id, name) VALUES ($1, $2)`, [m.id, m.name]);
        this.logger.log(`Applied migration ${m.id} ${m.name} in schema "${schema}"`);
      }
    });
    this.applied = true;
  }

  /** True when the database has every migration this build knows (asked of the database, not remembered). */
  async isUpToDate(): Promise<boolean> {
    try {
      const { rows } = await this.db.pool.query<{ max: number | null }>(
        `SELECT max(id) AS max FROM ${this.db.migrationsTable}`,
      );
      return (rows[0]?.max ?? 0) >= this.latest;
    } catch {
      return false;
    }
  }

  get ranThisProcess(): boolean {
    return this.applied;
  }
}
