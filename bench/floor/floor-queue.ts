import { Pool } from 'pg';
import { FloorVariant } from '../shared/bench-case';
import { BenchQueue, PrepareWorkerOptions, QueueCounts, RowState, WorkerHooks, WorkerSettings } from '../shared/bench-queue.interface';
import type { FloorHttpServer, HttpPlatform } from './floor-http-server';
import { FloorLoopsWorker } from './floor-loops-worker';
import { FloorPipelinedWorker } from './floor-pipelined-worker';
import { FloorWorker } from './floor-worker.interface';
import { FloorTables, floorTables } from './floor-tables';

/**
 * Connections of the floor's pool: as many as a Conveyor app may use — the pool of apps/server (`DB_POOL_SIZE`,
 * default 10) and of the benchmark's Conveyor apps (CONVEYOR_POOL_SIZE). Each also has one LISTEN connection.
 */
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

/**
 * The reference queue in each of its forms: the floor (floor-loops-worker.ts on the floor's table), the
 * floor-pipelined reference (floor-pipelined-worker.ts on that table) and the floor-conveyor-table reference (the
 * floor's loops on Conveyor's jobs table).
 */
export class FloorQueue implements BenchQueue {
  private readonly tables: FloorTables;
  private readonly pool: Pool;
  private worker: FloorWorker | null = null;
  private http: HttpPlatform | undefined;
  private server: FloorHttpServer | null = null;

  constructor(
    private readonly shape: FloorVariant,
    private readonly url: string,
    schema: string,
    private readonly appName: string,
  ) {
    this.tables = floorTables(schema, shape === 'floor-conveyor-table' ? 'conveyor' : 'floor');
    this.pool = new Pool({ connectionString: url, max: FLOOR_POOL_SIZE, application_name: appName, options: PLANNER_OPTIONS });
  }

  async setup(): Promise<void> {
    await this.pool.query(this.tables.sql.create());
  }

  async attach(): Promise<void> {
    // Nothing to open ahead: the pool connects on first use.
  }

  async insertRows(rows: number, state: RowState): Promise<void> {
    await this.pool.query(this.tables.sql.insertRows(rows, state));
    await this.pool.query(`VACUUM (ANALYZE) ${this.tables.jobs}`);
  }

  async enqueueMany(count: number, chunk: number): Promise<void> {
    for (let sent = 0; sent < count; sent += chunk) {
      const size = Math.min(chunk, count - sent);
      await this.pool.query(this.tables.sql.insertMany(Array.from({ length: size }, (_, i) => ({ n: sent + i }))));
    }
  }

  async enqueueOne(payload: unknown): Promise<void> {
    await this.pool.query(this.tables.sql.insertMany([payload]));
  }

  async prepareWorker(settings: WorkerSettings, hooks: WorkerHooks, options: PrepareWorkerOptions = {}): Promise<void> {
    this.http = options.http;
    if (options.worker === false) return;
    const listener = { connectionString: this.url, application_name: `${this.appName}:listener` };
    this.worker =
      this.shape === 'floor-pipelined'
        ? new FloorPipelinedWorker(this.pool, this.tables, settings, hooks, listener)
        : new FloorLoopsWorker(this.pool, FLOOR_POOL_SIZE, this.tables, settings, hooks, listener);
  }

  async startWorker(): Promise<number | undefined> {
    await this.worker?.start();
    if (!this.http) return undefined;
    // Loaded here: a worker process that serves no HTTP does not hold Express and Fastify.
    const { startFloorHttpServer } = await import('./floor-http-server');
    this.server = await startFloorHttpServer(this.http, this.pool, this.tables);
    return this.server.port;
  }

  async counts(): Promise<QueueCounts> {
    const { rows } = await this.pool.query<{ total: number; done: number }>(this.tables.sql.counts());
    return { total: rows[0].total, done: rows[0].done, open: rows[0].total - rows[0].done };
  }

  async close(): Promise<void> {
    await this.server?.close();
    await this.worker?.stop();
    await this.pool.end();
  }
}
