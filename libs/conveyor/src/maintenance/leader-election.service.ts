import { Inject, Injectable, Logger } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { Client, QueryConfig } from 'pg';
import { isConnectionError } from '../database/connection-errors';
import { ConveyorDatabase } from '../database/conveyor-database.service';
import { RowMode, SqlRunner } from '../database/sql-runner.interface';

/**
 * Elects one maintenance leader per schema with a session-level advisory lock held on a dedicated
 * connection. The lock lives exactly as long as that connection: when the leader process dies (even by
 * SIGKILL) PostgreSQL drops the connection and the lock with it, and the next instance to try takes
 * over. Maintenance statements run on the same connection, so a leader that lost its connection
 * notices on its very next statement and stops leading.
 *
 * A leader that is alive but frozen (stopped, swapping, stuck) would keep its connection and the lock
 * forever; so the connection sets `idle_session_timeout` to a few maintenance intervals. A healthy
 * leader runs statements every interval and never reaches it; a frozen one is disconnected by the
 * server, which frees the lock for the others.
 */
@Injectable()
export class LeaderElection {
  private readonly logger = new Logger('Conveyor:Leader');
  private client: Client | null = null;
  private leading = false;

  constructor(
    private readonly db: ConveyorDatabase,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  /** Becomes leader if nobody is; returns a runner on the leader connection, or null when another instance leads. */
  async acquire(): Promise<SqlRunner | null> {
    if (this.leading && this.client) return this.runner(this.client);
    await this.release();
    const client = new Client(this.db.clientConfig('leader'));
    client.on('error', () => this.drop(client));
    client.on('end', () => this.drop(client));
    try {
      await client.connect();
      const idleLimit = Math.max(5000, this.options.maintenanceIntervalMs * 4);
      await client.query(`SET idle_session_timeout = ${Math.floor(idleLimit)}`);
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [
        `conveyor-leader:${this.db.schema}`,
      ]);
      if (!rows[0]?.ok) {
        await client.end().catch(() => undefined);
        return null;
      }
      this.client = client;
      this.leading = true;
      this.logger.log('This instance is now the maintenance leader');
      return this.runner(client);
    } catch (err) {
      this.logger.warn(`Leader election failed: ${(err as Error).message}`);
      await client.end().catch(() => undefined);
      return null;
    }
  }

  /** Gives up leadership (closing the connection releases the lock). */
  async release(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (this.leading) this.logger.log('Maintenance leadership released');
    this.leading = false;
    if (client) await client.end().catch(() => undefined);
  }

  private drop(client: Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.leading = false;
    this.logger.warn('Lost the leader connection; leadership is open again');
  }

  private runner(client: Client): SqlRunner {
    return {
      query: async <R>(text: string, values?: unknown[], _name?: string, rowMode?: RowMode) => {
        try {
          const res = await client.query({ text, values, rowMode } as QueryConfig);
          return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
        } catch (err) {
          if (isConnectionError(err)) this.drop(client);
          throw err;
        }
      },
    };
  }
}
