import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Client, ClientConfig, Pool, PoolClient, QueryConfig } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { CONVEYOR_DATA_SOURCE } from '../conveyor.constants';
import { DatabasePoolExhaustedError, DatabaseUnavailableError } from '../errors/job-request.errors';
import { MESSAGES } from '../conveyor.messages';
import { isConnectionError } from './connection-errors';
import { followPoolCheckouts, isPoolExhausted } from './pool-checkouts';
import { youngRows } from './young-rows';
import { ENGINE_TYPE_PARSERS } from './engine-type-parsers';
import { quoteIdent } from './quote';
import { SqlTables } from '../sql/statement';
import { RowMode, SqlResult, SqlRunner } from './sql-runner.interface';

/**
 * The engine's handle on PostgreSQL. TypeORM owns the connection pool; the engine's own statements go
 * straight to that pg pool (named, prepared statements on the hot path) instead of through TypeORM's
 * query runner, and every table name is qualified with the DataSource's schema, escaped once here.
 */
@Injectable()
export class ConveyorDatabase {
  /** Schema holding Conveyor's tables: the DataSource's schema, `public` when it sets none. */
  readonly schema: string;
  /** Escaped `schema.conveyor_jobs`. */
  readonly jobsTable: string;
  /** Escaped `schema.conveyor_queues`. */
  readonly queuesTable: string;
  /** Escaped `schema.conveyor_migrations`. */
  readonly migrationsTable: string;
  /** Channel the insert trigger notifies on. */
  readonly channel: string;
  /** What the statement builders in ../sql need. */
  readonly tables: SqlTables;

  readonly pool: SqlRunner = {
    query: <R>(text: string, values?: unknown[], name?: string, rowMode?: RowMode) => this.poolQuery<R>(text, values, name, rowMode),
  };

  constructor(@Inject(CONVEYOR_DATA_SOURCE) readonly dataSource: DataSource) {
    this.schema = (dataSource.options as { schema?: string }).schema ?? 'public';
    const s = quoteIdent(this.schema);
    this.jobsTable = `${s}.conveyor_jobs`;
    this.queuesTable = `${s}.conveyor_queues`;
    this.migrationsTable = `${s}.conveyor_migrations`;
    this.channel = channelFor(this.schema);
    this.tables = { schema: s, jobs: this.jobsTable, queues: this.queuesTable, key: shortHash(this.schema) };
    followPoolCheckouts(this.pgPool);
  }

  /** The pg pool TypeORM created. */
  get pgPool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  /**
   * Connection settings for a dedicated client (LISTEN, leader lock) outside the pool; `role` is
   * appended to the pool's application_name so operators can tell the connections apart.
   */
  clientConfig(role: string): ClientConfig {
    const o = (this.pgPool as unknown as { options: ClientConfig & Record<string, unknown> }).options;
    return {
      connectionString: o.connectionString,
      host: o.host,
      port: o.port,
      user: o.user,
      password: o.password,
      database: o.database,
      ssl: o.ssl,
      connectionTimeoutMillis: (o.connectionTimeoutMillis as number | undefined) ?? 5000,
      keepAlive: true,
      application_name: `${(o.application_name as string | undefined) ?? 'conveyor'}:${role}`.slice(0, 63),
    };
  }

  /**
   * A runner bound to the caller's transaction when `manager` is a transactional EntityManager,
   * so a job inserted through it exists only if that transaction commits; the pool otherwise.
   */
  runnerFor(manager?: EntityManager): SqlRunner {
    const queryRunner = manager?.queryRunner;
    if (!queryRunner) return this.pool;
    return {
      query: async <R>(text: string, values?: unknown[], _name?: string, rowMode?: RowMode): Promise<SqlResult<R>> => {
        const client = (await queryRunner.connect()) as PoolClient;
        const res = await client.query(queryConfig(text, values, undefined, rowMode));
        return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
      },
    };
  }

  /** Runs `work` in a transaction on one pooled connection. */
  async transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const client = await this.connect();
    try {
      await client.query('BEGIN');
      const tx: SqlRunner = {
        query: async <R>(text: string, values?: unknown[], name?: string, rowMode?: RowMode) => {
          const res = await client.query(queryConfig(text, values, name, rowMode));
          return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
        },
      };
      const result = await work(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.translate(err);
    } finally {
      client.release();
    }
  }

  private async connect(): Promise<PoolClient> {
    try {
      return await this.pgPool.connect();
    } catch (err) {
      throw this.translate(err);
    }
  }

  /**
   * One statement on a pooled connection, as `Pool.query` runs it (a connection that failed a statement is
   * discarded, not reused), but with the connection in hand, so the result can say which backend committed it.
   */
  private async poolQuery<R>(text: string, values?: unknown[], name?: string, rowMode?: RowMode): Promise<SqlResult<R>> {
    const client = await this.connect();
    let failure: Error | undefined;
    try {
      const res = await this.queryOn<R>(client, text, values, name, rowMode);
      return { ...res, committedOn: (client as PoolClient & { processID: number }).processID };
    } catch (err) {
      failure = err as Error;
      throw err;
    } finally {
      client.release(failure);
    }
  }

  /** Runs one statement on `target` (the engine's pool, or a connection it owns) with the engine's type parsers. */
  async queryOn<R>(
    target: Pool | Client | PoolClient,
    text: string,
    values?: unknown[],
    name?: string,
    rowMode?: RowMode,
  ): Promise<SqlResult<R>> {
    try {
      const res = await (target as Pool).query(queryConfig(text, values, name, rowMode));
      return { rows: youngRows(res.rows) as R[], rowCount: res.rowCount ?? 0 };
    } catch (err) {
      throw this.translate(err);
    }
  }

  /**
   * Connection failures become {@link DatabaseUnavailableError} (a {@link DatabasePoolExhaustedError} when
   * every pooled connection is checked out); anything else is rethrown as is.
   */
  translate(err: unknown): unknown {
    if (err instanceof DatabaseUnavailableError) return err;
    if (isPoolExhausted(err, this.pgPool)) return new DatabasePoolExhaustedError(MESSAGES.databasePoolExhausted, { cause: err });
    return isConnectionError(err) ? new DatabaseUnavailableError(MESSAGES.databaseUnavailable, { cause: err }) : err;
  }
}

/** A pg query config with the engine's type parsers; `name` makes it a prepared statement. */
function queryConfig(text: string, values: unknown[] | undefined, name: string | undefined, rowMode: RowMode | undefined): QueryConfig {
  return { name, text, values: values as unknown[], rowMode, types: ENGINE_TYPE_PARSERS as QueryConfig['types'] } as QueryConfig;
}

function shortHash(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 12);
}

/** NOTIFY channel for a schema; channel names are identifiers, so at most 63 bytes. */
export function channelFor(schema: string): string {
  const name = `conveyor:${schema}`;
  return Buffer.byteLength(name) <= 63 ? name : `conveyor:${shortHash(schema)}`;
}
