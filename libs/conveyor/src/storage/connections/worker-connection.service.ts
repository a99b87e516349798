import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Client } from 'pg';
import { PoolerMode } from '../../config/pooler-mode';
import { connectionErrorText, isReadOnlyError } from './connection-errors';
import { ConveyorDatabase } from './conveyor-database.service';
import { dedicatedClient } from './dedicated-client';
import { HELD_SESSION_SQL } from './held-session';
import { workerSessionSql } from './session-formats';
import { QueryOptions, SqlResult, SqlRunner, STATEMENT_DEADLINE_MS } from './sql-runner.interface';
import { carriageMs } from './statement-deadline';

/**
 * Planner settings of the worker connection. The claim must walk the partial claim index in
 * (priority, run_at) order and stop after the batch. PostgreSQL picks that plan only when its statistics
 * say many rows are claimable; right after a burst of inserts (before autovacuum re-analyses the table)
 * it believes there are a handful and instead bitmap-scans every claimable row and sorts them, which grows with
 * the backlog. None of the statements on this connection (claims and outcome
 * writes, which reach their rows by primary key) wants a sort, a bitmap or a sequential scan.
 *
 * With those ruled out there is one sensible plan whatever the parameters, so each statement is planned
 * once per connection (`force_generic_plan`). PostgreSQL's default plans a claim again on every call — its
 * generic plan cannot see the LIMIT, so it never looks cheaper than a custom one — and planning is a real share of
 * a claim's backend CPU.
 *
 * JIT compilation is off: a path these settings rule out is not removed but priced at 10^10, and a plan
 * that still had to take one (a sequential scan of a table whose index is missing) would cross
 * `jit_above_cost` and compile on every planning. Nothing on this connection runs long enough
 * for JIT to pay.
 */
export const CLAIM_PLANNER_SETTINGS: Readonly<Record<string, string>> = {
  enable_sort: 'off',
  enable_bitmapscan: 'off',
  enable_seqscan: 'off',
  plan_cache_mode: 'force_generic_plan',
  jit: 'off',
};

/** CLAIM_PLANNER_SETTINGS as a connection's startup `options` (`-c name=value …`), for a test's own client. */
export const CLAIM_PLANNER_OPTIONS = Object.entries(CLAIM_PLANNER_SETTINGS)
  .map(([name, value]) => `-c ${name}=${value}`)
  .join(' ');

/**
 * Sets CLAIM_PLANNER_SETTINGS on the worker connection's session, as its second statement, before any claim is
 * planned. A statement rather than the startup parameter `options`: PgBouncer refuses that parameter in every pool
 * mode (`unsupported startup parameter: options`), so a worker connection that sent it could never log in through a
 * PgBouncer in session mode, which needs no pooler mode otherwise.
 */
const CLAIM_PLANNER_SQL = `SELECT ${Object.entries(CLAIM_PLANNER_SETTINGS)
  .map(([name, value]) => `set_config('${name}', '${value}', false)`)
  .join(', ')}`;

/**
 * How the worker connection uses its session. Behind a pooler in transaction mode it has none of its own:
 *
 * - No planner settings: a session setting stays on the server connection that ran it, for the pooler's other
 *   clients, and does not follow this client's statements to the next one. Claims are planned with the server's
 *   settings, so one made right after a burst of inserts may sort instead of walking the claim index (see
 *   CLAIM_PLANNER_SETTINGS) until the table is analysed again.
 * - No pipelining: each statement is its own transaction, which ends at its ReadyForQuery, where the pooler may
 *   give the server connection to another client. Whether statements sent behind it before that answer go with
 *   it is up to the pooler and its version, not a promise of the protocol, so each is sent once the one before
 *   it is answered — by then it has committed, so the order of the calls to `runner` is still the order in
 *   which their statements take effect.
 */
function sessionSettings(pooler: PoolerMode): { plannerSql?: string; pipeline: boolean } {
  return pooler === 'none' ? { plannerSql: CLAIM_PLANNER_SQL, pipeline: true } : { pipeline: false };
}

/**
 * The worker's hot path to PostgreSQL: one connection, in pipeline mode, that carries every claim (the poller's
 * and HTTP workers') and every batch of outcomes the Completer writes. Statements are sent as soon as they are
 * made, without waiting for the ones before them, and the backend runs them back to back in that order.
 *
 * One backend instead of one for claims and others for outcome writes: run side by side on the same rows and
 * index pages, the claim and the completion each cost PostgreSQL more CPU than run one after the other (see
 * docs/performance.md), and the claim is what a draining worker waits on. Pipelining keeps the backend busy while Node reads each answer. The price is order: a claim
 * waits behind an outcome write sent before it, and one instance's claims
 * and writes use at most one core of the database server — scale out with more instances.
 *
 * Opened on first use, so an app that never claims (a producer) holds no worker connection. When the server
 * drops it (restart, pg_terminate_backend), the statements on it fail as connection errors — the poller claims
 * again at its next wake-up, the Completer keeps its outcomes and retries — and the next statement opens a new
 * connection. A statement that goes unanswered past its deadline (a network that drops packets) has the
 * connection abandoned, with the same effect. A statement refused because the session is read-only has the connection
 * closed too: a session that began read-only (a standby, `default_transaction_read_only`) stays so, while the next one
 * may reach a writable primary.
 */
@Injectable()
export class WorkerConnection implements OnApplicationShutdown {
  private readonly logger = new Logger('Conveyor');
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;

  /**
   * Statements reach the connection in the order of the calls to `query`: on an open connection a statement is
   * sent within the call, so one sent right after it is run after it (LocalPickup's claim behind its insert).
   */
  readonly runner: SqlRunner = {
    query: <R>(text: string, values?: unknown[], options?: QueryOptions) => {
      this.inFlight++;
      const carriage = carriageMs(values);
      const pipelined = this.db.pooler === 'none';
      // Pipelined, a statement is answered after the ones sent before it: its deadline also allows for what they carry.
      const behind = pipelined ? this.carriageInFlight : 0;
      this.carriageInFlight += carriage;
      const sent = behind > 0 ? { ...options, deadlineMs: (options?.deadlineMs ?? STATEMENT_DEADLINE_MS) + behind } : options;
      const send = (client: Client) =>
        this.db.queryOn<R>(client, text, values, sent).then(
          (res) => {
            this.readOnlySpell = false;
            return res;
          },
          (err: unknown) => {
            if (isReadOnlyError(err)) this.replace(client, err);
            throw err;
          },
        );
      let answer: Promise<SqlResult<R>>;
      if (!pipelined) answer = this.inTurn(() => this.connected().then(send));
      else answer = this.client ? send(this.client) : this.connected().then(send);
      return answer.finally(() => {
        this.inFlight--;
        this.carriageInFlight -= carriage;
      });
    },
  };
  /** Statements sent and not answered yet. */
  private inFlight = 0;
  /** The `carriageMs` of the statements in flight. */
  private carriageInFlight = 0;
  /** Without pipelining: settles when the last statement handed to `runner` is answered (see sessionSettings). */
  private lastTurn: Promise<unknown> = Promise.resolve();
  /**
   * Whether a connection was replaced for being read-only since a statement on the worker connection last succeeded.
   * While the database stays read-only every claim opens a connection that is read-only again: the spell is logged
   * once, as the poller logs its failed claims once.
   */
  private readOnlySpell = false;

  constructor(private readonly db: ConveyorDatabase) {}

  async onApplicationShutdown(): Promise<void> {
    const client = this.client ?? (await this.connecting?.catch(() => null));
    this.client = null;
    this.connecting = null;
    // In pipeline mode `end` lets the statements already sent finish first.
    await client?.end().catch(() => undefined);
  }

  /** Whether the connection is open with nothing in flight: a statement handed to `runner` is sent, and run, at once. */
  get isIdle(): boolean {
    return this.client !== null && this.inFlight === 0;
  }

  /**
   * Runs `send` once every statement handed over before it is answered. Without pipelining the connection takes
   * one statement at a time; waiting here, rather than in pg's own queue, starts each statement's deadline when
   * it is sent.
   */
  private inTurn<R>(send: () => Promise<R>): Promise<R> {
    const answer = this.lastTurn.then(send);
    this.lastTurn = answer.catch(() => undefined);
    return answer;
  }

  private connected(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    return (this.connecting ??= this.open());
  }

  private async open(): Promise<Client> {
    const { plannerSql, pipeline } = sessionSettings(this.db.pooler);
    const client = dedicatedClient({ ...this.db.clientConfig('worker'), pipeline });
    // Without a listener an 'error' event would crash the process.
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await this.db.queryOn(client, workerSessionSql(this.db.pooler));
      if (plannerSql) await this.db.queryOn(client, plannerSql);
      // Behind a pooler the session is the pooler's, and so is the server's idle limit on it.
      if (this.db.pooler === 'none') await this.db.queryOn(client, HELD_SESSION_SQL);
    } catch (err) {
      client.end().catch(() => undefined);
      throw this.db.translate(err);
    } finally {
      this.connecting = null;
    }
    this.client = client;
    return client;
  }

  /**
   * Closes a connection whose session cannot write: the statements already sent on it still run there (read-only, so
   * their writes fail too), and the next one opens another.
   */
  private replace(client: Client, err: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    if (!this.readOnlySpell) {
      this.logger.warn(
        `Worker connection is read-only (${connectionErrorText(err)}); each claim or outcome write opens a new one until the database takes writes`,
      );
    }
    this.readOnlySpell = true;
    client.end().catch(() => undefined);
  }

  private lost(client: Client, err?: Error): void {
    if (this.client !== client) return;
    this.client = null;
    this.logger.warn(`Worker connection lost${err ? `: ${err.message}` : ''}; the next claim or outcome write opens a new one`);
  }
}
