/** Job type of the benchmark's no-op handler (both Conveyor and the floor use the name). */
export const BENCH_JOB_TYPE = 'BENCH_NOOP';

/** Worker knobs, named after Conveyor's engine options; the floor honours the same ones. */
export interface WorkerSettings {
  /** Handlers running at once. */
  concurrency: number;
  /** Most rows one claim statement takes. */
  claimBatchSize: number;
  /** Claimed jobs kept ready beyond the running ones. */
  prefetch: number | 'auto';
  /** Fallback poll when no notification comes. */
  pollIntervalMs: number;
  /** Most outcomes one completion statement writes. */
  completionBatchSize: number;
  /** Longest an outcome waits before it is written (Conveyor only; the floor writes as soon as it can). */
  completionFlushMs: number;
}

/** Callbacks a case hangs on the worker. */
export interface WorkerHooks {
  /** A handler started (called inside the handler, before it returns). */
  onStart?(id: string, payload: unknown): void;
  /** `count` outcomes were written to the database. */
  onFinished?(count: number): void;
}

/** Rows inserted in bulk under a case: jobs waiting to run, or finished history. */
export type RowState = 'pending' | 'finished';

/** What else a worker-side process serves. */
export interface PrepareWorkerOptions {
  /** Serve `POST /jobs` (and Conveyor's whole API) on this framework. */
  http?: 'express' | 'fastify';
  /** Run the worker; false serves HTTP only (default true). */
  worker?: boolean;
  /**
   * Live events are watched (Conveyor only): a live-watch lease, as a dashboard's instance holds one while a browser
   * follows live events, stays current for the whole run, so the worker announces every change it makes. Nobody
   * listens to the announcements: this measures what announcing costs the worker.
   */
  liveWatched?: boolean;
}

/** Rows of the case's table by state, to check a drain after the fact. */
export interface QueueCounts {
  total: number;
  /** COMPLETED (Conveyor) or done (floor). */
  done: number;
  /** Still waiting or running. */
  open: number;
}

/**
 * What every case drives: Conveyor with one claim strategy, or the floor in one of its shapes. A queue is used by one
 * case process; `close()` releases everything it opened.
 */
export interface BenchQueue {
  /** Creates the tables (Conveyor: its migrations) in the case's schema. */
  setup(): Promise<void>;
  /** Opens a producer on a schema another process has set up (a producer in its own process). */
  attach(): Promise<void>;
  /** Inserts `rows` pending or finished jobs (one INSERT … SELECT generate_series), then VACUUM (ANALYZE). */
  insertRows(rows: number, state: RowState): Promise<void>;
  /** Enqueues `count` no-op jobs, `chunk` per statement, one statement after another. */
  enqueueMany(count: number, chunk: number): Promise<void>;
  /** Enqueues one no-op job (single-row insert and its notification). */
  enqueueOne(payload: unknown): Promise<void>;
  /** Builds the worker (connections, modules) without starting to claim. */
  prepareWorker(settings: WorkerSettings, hooks: WorkerHooks, options?: PrepareWorkerOptions): Promise<void>;
  /** Starts claiming; with `http`, also listens and resolves with the port. */
  startWorker(): Promise<number | undefined>;
  counts(): Promise<QueueCounts>;
  close(): Promise<void>;
}
