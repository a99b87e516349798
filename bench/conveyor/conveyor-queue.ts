import { INestApplication } from '@nestjs/common';
import { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { ConveyorEvents, ConveyorOptionsInput, JobsService } from '@conveyor/core';
import { ConveyorVariant } from '../shared/bench-case';
import {
  BENCH_JOB_TYPE,
  BenchQueue,
  PrepareWorkerOptions,
  QueueCounts,
  RowState,
  WorkerHooks,
  WorkerSettings,
} from '../shared/bench-queue.interface';
import { LivePublisher } from '@conveyor/core/observation/live';
import { conveyorCounts, conveyorHoldLiveWatch, conveyorInsertRows } from './conveyor-bench.sql';
import { createBenchApp } from './create-bench-app';

/**
 * Conveyor with one claim strategy. Enqueueing before the worker exists goes through a producer app
 * with `runWorkers: false` (it also runs the migrations); `prepareWorker` closes it first, so the
 * worker app is the only instance and does the leader's maintenance itself, as a lone server would.
 */
export class ConveyorQueue implements BenchQueue {
  private producer: INestApplication | null = null;
  private worker: INestApplication | null = null;
  private http: PrepareWorkerOptions['http'];
  private liveWatched = false;
  /** The current app's JobsService, looked up once per app: a service holds it injected, not fetched per call. */
  private jobsService: JobsService | null = null;
  private readonly sql: Pool;

  constructor(
    private readonly variant: ConveyorVariant,
    private readonly url: string,
    private readonly schema: string,
    private readonly appName: string,
  ) {
    this.sql = new Pool({ connectionString: url, max: 1, application_name: `${appName}:bench` });
  }

  async setup(): Promise<void> {
    await this.openProducer(true);
  }

  async attach(): Promise<void> {
    await this.openProducer(false);
  }

  async insertRows(rows: number, state: RowState): Promise<void> {
    const table = this.jobsTable();
    await this.sql.query(conveyorInsertRows(table, rows, state));
    await this.sql.query(`VACUUM (ANALYZE) ${table}`);
  }

  async enqueueMany(count: number, chunk: number): Promise<void> {
    const jobs = this.jobs();
    for (let sent = 0; sent < count; sent += chunk) {
      const size = Math.min(chunk, count - sent);
      await jobs.enqueueMany(Array.from({ length: size }, (_, i) => ({ type: BENCH_JOB_TYPE, payload: { n: sent + i } })));
    }
  }

  async enqueueOne(payload: unknown): Promise<void> {
    await this.jobs().enqueue(BENCH_JOB_TYPE, payload);
  }

  async prepareWorker(settings: WorkerSettings, hooks: WorkerHooks, options: PrepareWorkerOptions = {}): Promise<void> {
    await this.producer?.close();
    this.producer = null;
    this.jobsService = null;
    const runWorkers = options.worker !== false;
    const engine: ConveyorOptionsInput = { ...settings, claimStrategy: this.variant, listen: true, migrate: false, runWorkers };
    this.http = options.http;
    this.liveWatched = options.liveWatched === true;
    if (this.liveWatched) await this.sql.query(conveyorHoldLiveWatch(this.schema));
    this.worker = await createBenchApp({ url: this.url, schema: this.schema, appName: this.appName, engine, hooks, http: this.http });
    // 'finished' fires once the outcome is written, which is where a drain ends.
    this.worker.get(ConveyorEvents).on('finished', () => hooks.onFinished?.(1));
  }

  async startWorker(): Promise<number | undefined> {
    if (!this.worker) throw new Error('prepareWorker() first');
    if (!this.http) {
      await this.worker.init();
      if (this.liveWatched) await untilWatched(this.worker.get(LivePublisher));
      return undefined;
    }
    await this.worker.listen(0, '127.0.0.1');
    return (this.worker.getHttpServer().address() as AddressInfo).port;
  }

  async counts(): Promise<QueueCounts> {
    const { rows } = await this.sql.query<QueueCounts>(conveyorCounts(this.jobsTable()));
    return rows[0];
  }

  async close(): Promise<void> {
    await this.producer?.close();
    await this.worker?.close();
    this.producer = this.worker = null;
    this.jobsService = null;
    await this.sql.end();
  }

  /** A producer app (`runWorkers: false`); `migrate` on the process that sets the schema up. */
  private async openProducer(migrate: boolean): Promise<void> {
    this.producer = await createBenchApp({
      url: this.url,
      schema: this.schema,
      appName: `${this.appName}:producer`,
      engine: { claimStrategy: this.variant, runWorkers: false, migrate },
      hooks: {},
    });
    await this.producer.init();
  }

  private app(): INestApplication {
    const app = this.worker ?? this.producer;
    if (!app) throw new Error('setup() or prepareWorker() first');
    return app;
  }

  private jobs(): JobsService {
    // Nest's app.get() searches the module graph (~60 µs a call): once per enqueue it was a fifth of the
    // latency case's own work before the insert went out.
    return (this.jobsService ??= this.app().get<JobsService>(JobsService));
  }

  /** Known without an app, so a fresh instance can check a schema other processes worked on. */
  private jobsTable(): string {
    return `"${this.schema}".conveyor_jobs`;
  }
}

/**
 * Resolves once the worker knows someone watches: it learns it from its first lease check, made as it starts, so
 * the drain's first claims may go out just before. Rejects if it never does.
 */
async function untilWatched(live: LivePublisher): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!live.watching) {
    if (Date.now() > deadline) throw new Error('the worker never saw the live-watch lease');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
