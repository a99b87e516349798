import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { BenchQueue, QueueCounts, WorkerHooks, WorkerSettings } from '../shared/bench-queue.interface';
import { createFloorHttpServer } from './floor-http-server';
import { FloorWorker } from './floor-worker';
import { floorCounts, floorCreateSql, floorInsertBacklog, floorInsertMany, FloorTables, floorTables } from './floor.sql';

/** Connections of the floor's pool: the same as the Conveyor apps the benchmark builds. */
export const FLOOR_POOL_SIZE = 10;

/**
 * Planner settings of the floor's connections. Right after a burst of inserts (before autovacuum has
 * analysed the table) PostgreSQL believes few rows are pending and answers the claim by bitmap-scanning
 * every pending row and sorting them (4 ms per claim at 20,000 queued, instead of 0.3 ms), or by hashing
 * against a sequential scan of the table. Conveyor pins its claim plan in its claim functions for the
 * same reason; without this the floor would be slowed by a planner accident and flatter Conveyor's ratios.
 * No other floor statement needs a sort, a bitmap or a sequential scan.
 */
const PLANNER_OPTIONS = '-c enable_sort=off -c enable_bitmapscan=off -c enable_seqscan=off';

/** The reference "floor" queue (see floor-worker.ts for what it does and leaves out). */
export class FloorQueue implements BenchQueue {
  private readonly tables: FloorTables;
  private readonly pool: Pool;
  private worker: FloorWorker | null = null;
  private server: Server | null = null;

  constructor(
    private readonly url: string,
    schema: string,
    private readonly appName: string,
  ) {
    this.tables = floorTables(schema);
    this.pool = new Pool({ connectionString: url, max: FLOOR_POOL_SIZE, application_name: appName, options: PLANNER_OPTIONS });
  }

  async setup(): Promise<void> {
    await this.pool.query(floorCreateSql(this.tables));
  }

  async insertBacklog(rows: number): Promise<void> {
    await this.pool.query(floorInsertBacklog(this.tables, rows));
    await this.pool.query(`VACUUM (ANALYZE) ${this.tables.jobs}`);
  }

  async enqueueMany(count: number, chunk: number): Promise<void> {
    for (let sent = 0; sent < count; sent += chunk) {
      const size = Math.min(chunk, count - sent);
      await this.pool.query(
        floorInsertMany(
          this.tables,
          Array.from({ length: size }, (_, i) => ({ n: sent + i })),
        ),
      );
    }
  }

  async enqueueOne(payload: unknown): Promise<void> {
    await this.pool.query(floorInsertMany(this.tables, [payload]));
  }

  async prepareWorker(settings: WorkerSettings, hooks: WorkerHooks, options: { http?: boolean } = {}): Promise<void> {
    this.worker = new FloorWorker(this.pool, this.tables, settings, hooks, {
      connectionString: this.url,
      application_name: `${this.appName}:listener`,
    });
    if (options.http) this.server = createFloorHttpServer(this.pool, this.tables);
  }

  async startWorker(): Promise<number | undefined> {
    if (!this.worker) throw new Error('prepareWorker() first');
    await this.worker.start();
    const server = this.server;
    if (!server) return undefined;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  async counts(): Promise<QueueCounts> {
    const { rows } = await this.pool.query<{ total: number; done: number }>(floorCounts(this.tables));
    return { total: rows[0].total, done: rows[0].done, open: rows[0].total - rows[0].done };
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server) await new Promise((resolve) => server.close(resolve));
    await this.worker?.stop();
    await this.pool.end();
  }
}
