import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import type { Client, ClientConfig, Pool, PoolClient, QueryConfig, QueryResult } from 'pg';
import { DataSource, EntityManager, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { CONVEYOR_DATA_SOURCE, CONVEYOR_OPTIONS } from '../../config/conveyor.constants';
import { ConveyorOptions } from '../../config/conveyor-options.interface';
import { PoolerMode } from '../../config/pooler-mode';
import { DatabasePoolExhaustedError, DatabaseUnavailableError } from '../../errors/job-request.errors';
import { MESSAGES } from '../../errors/conveyor.messages';
import { isConnectionError } from './connection-errors';
import { giveEngineSockets, predatesEngineSockets } from './engine-socket';
import { followPoolCheckouts, isPoolExhausted, poolMax } from './pool-checkouts';
import { youngRows } from './young-rows';
import { ENGINE_TYPE_PARSERS } from './engine-type-parsers';
import { channelFor, SqlTables, sqlTablesFor } from './sql-tables';
import { guardPooledClients, KEEPALIVE_IDLE_MS } from './pooled-client-guard';
import { QueryOptions, SqlResult, SqlRunner, STATEMENT_DEADLINE_MS } from './sql-runner.interface';
import { carriageMs, withinDeadline } from './statement-deadline';
import { TRANSACTION_BEGIN_SQL } from './transaction-begin';
import { CallerTransactionCommits } from './caller-transaction-commits';
import { CallerDatabases, inIsoDateStyle } from './caller-databases';

/**
 * The engine's handle on PostgreSQL. TypeORM owns the connection pool; the engine's own statements go
 * straight to that pg pool (named, prepared statements on the hot path) instead of through TypeORM's
 * query runner, and every table name is qualified with the DataSource's schema, escaped once here.
 *
 * Behind a pooler in transaction mode (`pooler: 'transaction'`) a session is not the engine's: each transaction
 * may run on another server connection, one that other clients used before and will use after. Then nothing is
 * prepared by name — a statement prepared on one server connection is missing on the next, or already exists
 * there under another client's name — and every statement travels with its text, parsed where it runs (pg's
 * unnamed statement, replaced by the next one). The rest of the engine keeps no session
 * state either: transactions (migrations, with their transaction-scoped advisory lock) stay on one server
 * connection from BEGIN to COMMIT, the quiet insert's setting is transaction-local, and leadership is a lease row.
 * What still needs a session is set apart: the worker connection's planner options and pipelining
 * (WorkerConnection), the claim sent behind an insert (LocalPickup), and LISTEN (`listenerConfig`).
 */
@Injectable()
export class ConveyorDatabase implements OnModuleDestroy {
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
  /** Channel of live events (observation/live): apart from `channel`, so they never wake a worker. */
  readonly liveChannel: string;
  /** What the statement builders in ../sql need. */
  readonly tables: SqlTables;

  readonly pool: SqlRunner = {
    query: <R>(text: string, values?: unknown[], options?: QueryOptions) => this.poolQuery<R>(text, values, options),
  };

  /** The pooler between the engine and PostgreSQL, if any (see the class comment). */
  readonly pooler: PoolerMode;
  private readonly listenUrl: string | undefined;
  /** Work held until callers' transactions commit (see afterCallerCommit), per DataSource of the callers' managers. */
  private readonly callerCommits = new Map<DataSource, CallerTransactionCommits>();
  /** Which other DataSources of callers' managers are on this database (see runnerFor). */
  private readonly callerDatabases: CallerDatabases;

  constructor(
    @Inject(CONVEYOR_DATA_SOURCE) readonly dataSource: DataSource,
    @Optional() @Inject(CONVEYOR_OPTIONS) options?: Pick<ConveyorOptions, 'pooler' | 'listenUrl'>,
  ) {
    this.pooler = options?.pooler ?? 'none';
    this.listenUrl = options?.listenUrl;
    this.schema = (dataSource.options as { schema?: string }).schema ?? 'public';
    this.tables = sqlTablesFor(this.schema);
    this.jobsTable = this.tables.jobs;
    this.queuesTable = this.tables.queues;
    this.migrationsTable = this.tables.migrations;
    this.channel = channelFor(this.schema);
    this.liveChannel = channelFor(this.schema, 'conveyor-live');
    this.callerDatabases = new CallerDatabases(this.pool, this.tables);
    guardPooledClients(this.pgPool, this.pooler);
    followPoolCheckouts(this.pgPool);
    giveEngineSockets(this.pgPool);
  }

  onModuleDestroy(): void {
    for (const commits of this.callerCommits.values()) commits.detach();
    this.callerCommits.clear();
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
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
      application_name: `${(o.application_name as string | undefined) ?? 'conveyor'}:${role}`.slice(0, 63),
    };
  }

  /**
   * Connection settings of a LISTEN connection — the workers' (`listener`) or the live events' (`live`), named apart
   * for operators: `listenUrl` when set (a direct URL past a pooler), else the pool's own. Null behind a pooler in
   * transaction mode without `listenUrl`: a LISTEN made there would belong to whichever server connection ran it, and
   * its notifications would reach whichever client used it next.
   */
  listenerConfig(role: 'listener' | 'live'): ClientConfig | null {
    const config = this.clientConfig(role);
    if (this.listenUrl) {
      // Only the URL says where to connect; timeouts stay the pool's, and so does an `ssl` option unless the URL
      // gives an sslmode (pg reads the URL over the options). The pool's own URL and its sslmode are not read.
      return {
        ...config,
        connectionString: this.listenUrl,
        host: undefined,
        port: undefined,
        user: undefined,
        password: undefined,
        database: undefined,
      };
    }
    return this.pooler === 'none' ? config : null;
  }

  /**
   * Runs `run` once the caller's transaction that `manager` belongs to commits, never if it rolls back; at once without
   * a manager (the engine's own statements have committed when they are answered). The manager's DataSource, Conveyor's
   * or another on the same database, tells of its transactions' ends.
   */
  afterCallerCommit(manager: EntityManager | undefined, run: () => void): void {
    if (!manager?.queryRunner) return run();
    const { dataSource } = manager.queryRunner;
    let commits = this.callerCommits.get(dataSource);
    if (!commits) this.callerCommits.set(dataSource, (commits = new CallerTransactionCommits(dataSource)));
    commits.afterCommit(manager.queryRunner, run);
  }

  /**
   * A runner bound to the caller's transaction when `manager` is a transactional EntityManager,
   * so a job inserted through it exists only if that transaction commits; the pool otherwise.
   *
   * The statements bypass the QueryRunner's own checks, so its one that matters is repeated here: a released
   * QueryRunner keeps its pg client, which is back in the pool and may be running another caller's transaction,
   * so a manager whose transaction ended (kept past `dataSource.transaction`'s callback) is refused, as TypeORM
   * refuses it, instead of inserting the job into whatever that connection runs now. A manager of another DataSource
   * is refused unless that DataSource is on this database (CallerDatabases), before its first statement; when its
   * sessions write timestamps in another style than ISO, each statement runs with ISO for its duration.
   */
  runnerFor(manager?: EntityManager): SqlRunner {
    const queryRunner = manager?.queryRunner;
    if (!queryRunner) return this.pool;
    const callers: SqlRunner = {
      inCallerTransaction: true,
      query: async <R>(text: string, values?: unknown[], options?: QueryOptions): Promise<SqlResult<R>> => {
        if (queryRunner.isReleased) throw new QueryRunnerAlreadyReleasedError();
        const client = (await queryRunner.connect()) as PoolClient;
        const res = await client.query(queryConfig(text, values, { rowMode: options?.rowMode }, false));
        return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
      },
    };
    if (queryRunner.dataSource === this.dataSource) return callers;
    return {
      inCallerTransaction: true,
      query: async <R>(text: string, values?: unknown[], options?: QueryOptions): Promise<SqlResult<R>> => {
        const { isoDates } = await this.callerDatabases.refuseAnother(queryRunner.dataSource, callers);
        const statement = () => callers.query<R>(text, values, options);
        return isoDates ? statement() : inIsoDateStyle(callers, statement);
      },
    };
  }

  /**
   * Runs `work` in a transaction on one pooled connection; each statement has its deadline, and the server ends
   * the transaction when it waits too long for the next one (transaction-begin.ts), so a client cut off midway does
   * not keep its locks. `work` is told the backend it runs on, the sender of the NOTIFYs its statements queue for
   * the commit.
   */
  async transaction<T>(work: (tx: SqlRunner, backendPid: number) => Promise<T>): Promise<T> {
    const client = await this.connect();
    let failure: Error | undefined;
    const tx: SqlRunner = {
      query: <R>(text: string, values?: unknown[], options?: QueryOptions) => this.queryOn<R>(client, text, values, options),
    };
    try {
      await tx.query(TRANSACTION_BEGIN_SQL);
      const result = await work(tx, (client as PoolClient & { processID: number }).processID);
      await tx.query('COMMIT');
      return result;
    } catch (err) {
      failure = err as Error;
      await tx.query('ROLLBACK').catch(() => undefined);
      throw this.translate(err);
    } finally {
      // A connection whose statement failed may be broken (abandoned at its deadline, say): discard it.
      client.release(failure);
    }
  }

  /**
   * A pooled connection for the engine's statements, which are abandoned at their deadline: one on an engine socket
   * (see engine-socket.ts), so that abandoning it resets it over TLS too. A connection opened before the pool gave
   * engine sockets is discarded instead of used; there are at most as many as the pool may have.
   */
  private async connect(): Promise<PoolClient> {
    try {
      for (let discarded = 0; ; discarded++) {
        const client = await this.pgPool.connect();
        if (discarded >= poolMax(this.pgPool) || !predatesEngineSockets(this.pgPool, client)) return client;
        client.release(true);
      }
    } catch (err) {
      throw this.translate(err);
    }
  }

  /**
   * One statement on a pooled connection, as `Pool.query` runs it (a connection that failed a statement is
   * discarded, not reused), but with the connection in hand, so the result can say which backend committed it.
   * Behind a pooler that pid is the pooler's, no server's: the insert's NOTIFY then never pairs with the insert
   * (OwnInsertNotices), and the poller wakes once more than it needs to.
   */
  private async poolQuery<R>(text: string, values?: unknown[], options?: QueryOptions): Promise<SqlResult<R>> {
    const client = await this.connect();
    let failure: Error | undefined;
    try {
      const res = await this.queryOn<R>(client, text, values, options);
      return { ...res, committedOn: (client as PoolClient & { processID: number }).processID };
    } catch (err) {
      failure = err as Error;
      throw err;
    } finally {
      client.release(failure);
    }
  }

  /**
   * Runs one statement on a connection the engine holds, with the engine's type parsers and the statement's
   * deadline ({@link STATEMENT_DEADLINE_MS} unless it says otherwise, longer by what its parameters carry:
   * `carriageMs`): past it the connection is abandoned.
   */
  async queryOn<R>(client: Client | PoolClient, text: string, values?: unknown[], options?: QueryOptions): Promise<SqlResult<R>> {
    try {
      const answer = client.query(queryConfig(text, values, options, this.pooler === 'none'));
      const answered = await withinDeadline(client, answer, (options?.deadlineMs ?? STATEMENT_DEADLINE_MS) + carriageMs(values));
      // Text with several statements (a migration) answers with one result each: the last one stands for all.
      const res = (Array.isArray(answered) ? answered.at(-1) : answered) as QueryResult | undefined;
      return { rows: youngRows(res?.rows ?? []) as R[], rowCount: res?.rowCount ?? 0 };
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

/** A pg query config with the engine's type parsers; `name` makes it a prepared statement, when `prepare` allows. */
function queryConfig(text: string, values: unknown[] | undefined, options: QueryOptions | undefined, prepare: boolean): QueryConfig {
  const { name, rowMode } = options ?? {};
  return {
    name: prepare ? name : undefined,
    text,
    values: values as unknown[],
    rowMode,
    types: ENGINE_TYPE_PARSERS as QueryConfig['types'],
  } as QueryConfig;
}
