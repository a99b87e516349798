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
 *
 * With those ruled out there is one sensible plan whatever the parameters, so each claim statement is
 * planned once per connection (`force_generic_plan`). PostgreSQL's default planned it again on every
 * call — its generic plan cannot see the LIMIT, so it never looked cheaper than a custom one — and a
 * claim of 100 rows spent ~0.2 of its 1.5 ms of backend CPU planning (optimistic: 1.78 -> 1.64 ms).
 */
export const CLAIM_PLANNER_OPTIONS =
  '-c enable_sort=off -c enable_bitmapscan=off -c enable_seqscan=off -c plan_cache_mode=force_generic_plan';

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
