import { Client, ClientConfig, Pool } from 'pg';
import { WorkerHooks, WorkerSettings } from '../shared/bench-queue.interface';
import { FloorJob, FloorWorker } from './floor-worker.interface';
import { FloorTables } from './floor-tables';

/**
 * The `floor-pipelined` reference: the floor's table and statements driven the way Conveyor's worker pool drives
 * its own, so that a ratio to it isolates the cost of Conveyor's guarantees from the cost of that design. It is not
 * the baseline (floor-loops-worker.ts is): with one claim and one write in flight it gets one commit at a time,
 * where independent loops commit in parallel.
 *
 * - one claim in flight at a time, for `min(free room, claimBatchSize)` rows, refilled when the
 *   buffer is down to half the prefetch (free room = concurrency + prefetch - running - buffered);
 * - `concurrency` handlers; a freed slot takes the next buffered job at once;
 * - finished ids go back with one `UPDATE … WHERE id = ANY($1)` per batch, one write in flight, so
 *   batches grow under load;
 * - woken by LISTEN/NOTIFY, with a fallback poll every `pollIntervalMs`.
 *
 * What it leaves out is what Conveyor adds: leases and heartbeats, fencing tokens, retries and
 * backoff, priorities and queues, timeouts, maintenance, graceful hand-back. A job whose worker dies
 * stays `running` for ever.
 */
export class FloorPipelinedWorker implements FloorWorker {
  private buffer: FloorJob[] = [];
  private running = 0;
  private finished: string[] = [];
  private writing: Promise<void> | null = null;
  private flushQueued = false;
  private fetching = false;
  private again = false;
  private moreLikely = true;
  private stopped = true;
  private listener: Client | null = null;
  private pollTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly tables: FloorTables,
    private readonly settings: WorkerSettings,
    private readonly hooks: WorkerHooks,
    private readonly listenerConfig: ClientConfig,
    private readonly handler: (job: FloorJob) => unknown = () => undefined,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.listener = new Client(this.listenerConfig);
    this.listener.on('notification', () => {
      this.moreLikely = true;
      this.wake();
    });
    await this.listener.connect();
    await this.listener.query(`LISTEN ${this.tables.channel}`);
    this.pollTimer = setInterval(() => this.wake(), this.settings.pollIntervalMs);
    this.wake();
  }

  /** Stops claiming, lets running handlers finish and writes every outcome. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
    while (this.running > 0 || this.finished.length > 0 || this.writing) {
      await (this.writing ?? new Promise((resolve) => setImmediate(resolve)));
      this.queueFlush();
    }
  }

  /** The pipelined floor keeps a fixed buffer; `auto` (Conveyor's adaptive prefetch) reads as none. */
  private get prefetch(): number {
    return this.settings.prefetch === 'auto' ? 0 : this.settings.prefetch;
  }

  private freeRoom(): number {
    if (this.finished.length > this.settings.completionBatchSize * 10) return 0;
    return Math.max(0, this.settings.concurrency + this.prefetch - this.running - this.buffer.length);
  }

  private wake(): void {
    if (this.stopped) return;
    if (this.fetching) {
      this.again = true;
      return;
    }
    void this.fetchLoop();
  }

  private async fetchLoop(): Promise<void> {
    this.fetching = true;
    try {
      let full = false;
      do {
        this.again = false;
        const limit = Math.min(this.freeRoom(), this.settings.claimBatchSize);
        if (limit === 0) break;
        const { rows } = await this.pool.query<FloorJob>(this.tables.sql.claim(limit));
        for (const row of rows) this.buffer.push({ id: String(row.id), payload: row.payload });
        this.dispatch();
        full = rows.length === limit;
        this.moreLikely = full;
      } while (!this.stopped && (this.again || (full && this.freeRoom() > 0)));
    } catch (err) {
      process.stderr.write(`floor: claim failed: ${(err as Error).message}\n`);
    } finally {
      this.fetching = false;
    }
  }

  private dispatch(): void {
    while (this.running < this.settings.concurrency && this.buffer.length > 0) void this.runOne(this.buffer.shift()!);
  }

  private async runOne(job: FloorJob): Promise<void> {
    this.running++;
    try {
      this.hooks.onStart?.(job.id, job.payload);
      await this.handler(job);
    } finally {
      this.running--;
      this.finished.push(job.id);
      this.queueFlush();
      this.dispatch();
      if (this.moreLikely && this.buffer.length <= this.prefetch / 2) this.wake();
    }
  }

  /** Writes after the current burst of handlers has settled, so they share one statement. */
  private queueFlush(): void {
    if (this.writing || this.flushQueued || this.finished.length === 0) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.writing) return;
    const ids = this.finished.splice(0, this.settings.completionBatchSize);
    if (ids.length === 0) return;
    this.writing = this.pool
      .query(this.tables.sql.complete(ids))
      .then(
        () => this.hooks.onFinished?.(ids.length),
        (err: Error) => void process.stderr.write(`floor: completion failed: ${err.message}\n`),
      )
      .finally(() => {
        this.writing = null;
        if (this.finished.length > 0) this.flush();
        else if (this.moreLikely) this.wake();
      });
  }
}
