import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { ConveyorDatabase } from './conveyor-database.service';
import { SqlRunner } from './sql-runner.interface';

/**
 * Planner settings of every claim connection. The claim must walk the partial claim index in
 * (priority, run_at) order and stop after the batch. PostgreSQL picks that plan only when its statistics
 * say many rows are claimable; right after a burst of inserts (before autovacuum re-analyses the table)
 * it believes there are a handful and instead bitmap-scans every claimable row and sorts them (9 ms at
 * 5,000 queued jobs, seconds at a million). Only the claimable-rows queries run on these connections,
 * and none of them wants a sort, a bitmap or a sequential scan.
 */
export const CLAIM_PLANNER_OPTIONS = '-c enable_sort=off -c enable_bitmapscan=off -c enable_seqscan=off';

/**
 * Connections reserved for the claim statements (both strategies: each picks claimable rows), opened with
 * CLAIM_PLANNER_OPTIONS for their whole session. Earlier versions set the same options per call, inside
 * PL/pgSQL functions (migration 0002), which cost ~0.3 ms per claim.
 * Two connections: the poller claims one batch at a time, and HTTP workers' claims may run beside it.
 */
@Injectable()
export class ClaimConnections implements OnApplicationShutdown {
  private readonly logger = new Logger('Conveyor');
  private pool: Pool | null = null;

  readonly runner: SqlRunner = {
    query: (text, values, name) => this.db.queryOn(this.connections(), text, values, name),
  };

  constructor(private readonly db: ConveyorDatabase) {}

  async onApplicationShutdown(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.end();
  }

  /** Opened on first use, so an app that never claims (a producer) holds no claim connection. */
  private connections(): Pool {
    if (this.pool) return this.pool;
    const pool = new Pool({ ...this.db.clientConfig('claims'), max: CLAIM_CONNECTIONS, options: CLAIM_PLANNER_OPTIONS });
    // An idle connection the server dropped (restart, pg_terminate_backend) is discarded by the pool; the
    // next claim opens a new one. Without a listener the 'error' event would crash the process.
    pool.on('error', (err) => this.logger.warn(`Claim connection lost: ${err.message}`));
    this.pool = pool;
    return pool;
  }
}

const CLAIM_CONNECTIONS = 2;
