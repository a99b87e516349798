import { Client, ClientConfig, Pool } from 'pg';
import { WorkerHooks, WorkerSettings } from '../shared/bench-queue.interface';
import { FloorJob, FloorWorker } from './floor-worker.interface';
import { FloorTables } from './floor-tables';

/**
 * The floor: the fastest simple correct queue worker we know how to write on its table, the baseline of every ratio
 * (on Conveyor's jobs table, the `floor-conveyor-table` reference).
 *
 * Protocol. `min(concurrency, pool size)` independent loops share the concurrency between them (10 handlers on
 * 10 loops: one each; 50: five each). Each loop, on whichever pool connection is free:
 *
 * 1. claims up to `claimBatchSize` pending jobs (`UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED LIMIT n)`,
 *    its own transaction, so no two loops of any process ever hold the same job);
 * 2. runs them with its share of the handlers;
 * 3. marks the whole batch done with one `UPDATE … WHERE id = ANY($1)`;
 * 4. claims again at once, unless the claim came back short and no wake-up arrived since it was sent: then it
 *    sleeps.
 *
 * A NOTIFY (one LISTEN connection per worker) or the fallback poll wakes one sleeping loop, not all of them, so an
 * idle worker sends one claim per job or per poll rather than one per loop; a loop whose claim came back full wakes
 * one more, so a backlog brings every loop in within a few claims. A wake-up counter read before each claim closes
 * the race between a short claim and a NOTIFY: a job committed before the claim's snapshot is in its result, and
 * one committed after it bumps the counter, so that loop claims again instead of sleeping. The loops never
 * wait for each other, so a worker has up to `loops` claims and completions in flight and PostgreSQL commits them
 * in parallel; nothing is buffered beyond the batch a loop is running.
 *
 * Deliberately left out, because a no-op benchmark never needs them: leases, heartbeats and fencing (a job whose
 * worker dies stays claimed for ever), retries, priorities, queues, timeouts, maintenance, graceful hand-back.
 * Connections are taken per statement, so a producer or an HTTP handler in the same process shares the pool with
 * the loops, as it shares Conveyor's.
 */
export class FloorLoopsWorker implements FloorWorker {
  private stopped = true;
  private wakes = 0;
  private sleepers: Array<() => void> = [];
  private loops: Promise<void>[] = [];
  private listener: Client | null = null;
  private pollTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly poolSize: number,
    private readonly tables: FloorTables,
    private readonly settings: WorkerSettings,
    private readonly hooks: WorkerHooks,
    private readonly listenerConfig: ClientConfig,
    private readonly handler: (job: FloorJob) => unknown = () => undefined,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.listener = new Client(this.listenerConfig);
    this.listener.on('notification', () => this.signal());
    await this.listener.connect();
    await this.listener.query(`LISTEN ${this.tables.channel}`);
    this.pollTimer = setInterval(() => this.signal(), this.settings.pollIntervalMs);
    this.loops = loopShares(this.settings.concurrency, this.poolSize).map((handlers) => this.loop(handlers));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.wakeAll();
    await Promise.all(this.loops);
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  /** Work may have arrived: loops that are claiming claim again, and one sleeping loop wakes. */
  private signal(): void {
    this.wakes++;
    this.sleepers.shift()?.();
  }

  private wakeAll(): void {
    this.wakes++;
    const sleepers = this.sleepers;
    this.sleepers = [];
    for (const wake of sleepers) wake();
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => this.sleepers.push(resolve));
  }

  private async loop(handlers: number): Promise<void> {
    const limit = this.settings.claimBatchSize;
    while (!this.stopped) {
      const seen = this.wakes;
      let claimed = 0;
      try {
        const { rows } = await this.pool.query<FloorJob>(this.tables.sql.claim(limit));
        claimed = rows.length;
        // A full batch suggests more: bring in another loop.
        if (claimed === limit) this.sleepers.shift()?.();
        if (claimed > 0) {
          await this.runAll(rows, handlers);
          await this.pool.query(this.tables.sql.complete(rows.map((r) => String(r.id))));
          this.hooks.onFinished?.(claimed);
        }
      } catch (err) {
        process.stderr.write(`floor: ${(err as Error).message}\n`);
      }
      if (claimed < limit && this.wakes === seen && !this.stopped) await this.sleep();
    }
  }

  /** Runs a claimed batch with `handlers` at a time. */
  private async runAll(jobs: FloorJob[], handlers: number): Promise<void> {
    let next = 0;
    const lane = async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        const id = String(job.id);
        this.hooks.onStart?.(id, job.payload);
        await this.handler({ id, payload: job.payload });
      }
    };
    await Promise.all(Array.from({ length: Math.min(handlers, jobs.length) }, lane));
  }
}

/** Handlers per loop: `concurrency` spread over `min(concurrency, poolSize)` loops, the first ones taking the rest. */
export function loopShares(concurrency: number, poolSize: number): number[] {
  const loops = Math.max(1, Math.min(concurrency, poolSize));
  return Array.from({ length: loops }, (_, i) => Math.floor(concurrency / loops) + (i < concurrency % loops ? 1 : 0));
}
