import { BackoffOptions } from './backoff-options.interface';
import { ClaimStrategyName } from './claim-strategy-name';
import { PoolerMode } from './pooler-mode';
import { CronScheduleDefinition } from './cron-schedule-options.interface';

/** Every engine setting. See `conveyorDefaults()` for the values used when one is omitted. */
export interface ConveyorOptions {
  /** `skip-locked` (one locking statement) or `optimistic` (compare-and-set on the row's version column). */
  claimStrategy: ClaimStrategyName;
  /** Identifies this process in `locked_by` and the error history. Default: host:pid:random. */
  workerId: string;
  /** When false this instance only accepts and serves jobs (an API-only node). */
  runWorkers: boolean;
  /** Handlers running at once in this process, across all queues and types. */
  concurrency: number;
  /** Optional per-queue caps on running handlers (within `concurrency`). */
  queueConcurrency: Record<string, number>;
  /** Most rows one claim statement may take. */
  claimBatchSize: number;
  /**
   * Claimed jobs kept ready in memory beyond the running ones, so a free slot never waits on a round trip. `auto`
   * sizes it to what this instance starts during one claim's round trip (up to two claim batches): deep for a
   * backlog of quick jobs, next to nothing for slow ones, so an instance does not sit on jobs others could run.
   */
  prefetch: number | 'auto';
  /** Fallback poll interval; LISTEN/NOTIFY normally wakes the poller sooner. */
  pollIntervalMs: number;
  /** Use LISTEN/NOTIFY for instant wake-up. */
  listen: boolean;
  /**
   * `transaction` when the DataSource connects through a pooler in transaction mode (PgBouncer): no statement is
   * prepared by name, the worker connection sends no startup options and does not pipeline, an instance's own
   * submissions are not claimed behind their insert, and LISTEN uses `listenUrl` (without it, workers only poll).
   */
  pooler: PoolerMode;
  /**
   * Connection URL of the LISTEN connection, when it must not be the DataSource's: a direct URL to the server,
   * past the pooler (LISTEN needs a session of its own). Default: the DataSource's connection settings, or none
   * in pooler mode.
   */
  listenUrl?: string;
  /** How long a claim is valid without a heartbeat. */
  leaseMs: number;
  /** How often held leases are extended (must be well below leaseMs). */
  heartbeatIntervalMs: number;
  /**
   * How often the elected leader rescues expired leases and prunes old jobs, and every instance heartbeats into the
   * instance registry (a dead instance stays listed for three intervals after its last heartbeat).
   */
  maintenanceIntervalMs: number;
  /** On shutdown, how long running handlers may finish before their jobs are handed back. */
  shutdownGraceMs: number;
  /**
   * Liveness fails for a while after the event loop was blocked this long at once (0 = never): the process is
   * stuck on synchronous work, and a restart is the cure. Measured over a window of twice this (at least 1 s).
   */
  livenessEventLoopDelayMs: number;
  /**
   * Liveness fails while a claim round has been in flight this long (0 = never). Every statement has its own
   * deadline, so only a wedged worker loop gets there — not a database outage, which ends each claim in an error.
   */
  livenessClaimStallMs: number;
  /** Most outcomes written by one completion statement. */
  completionBatchSize: number;
  /** Longest an outcome waits in memory before it is written. */
  completionFlushMs: number;
  /** Attempts before a failing job is DEAD, unless the handler or submission says otherwise. */
  defaultMaxAttempts: number;
  /** Handler timeout unless the handler says otherwise. */
  defaultTimeoutMs: number;
  /** Default retry backoff. */
  backoff: BackoffOptions;
  /** How many times a job may ask to be retried later (RetryLaterError) before it is DEAD. */
  maxSnoozes: number;
  /** COMPLETED jobs are deleted this long after they finished (0 keeps them forever; at most a century). */
  retentionCompletedMs: number;
  /** Rows the retention cleaner deletes per statement. */
  retentionBatchSize: number;
  /**
   * Types accepted at submission that no in-process handler serves: only HTTP workers
   * (`POST /queues/:queue/claim`) claim them, and in-process workers never do, even with a handler.
   */
  externalTypes: string[];
  /**
   * Most jobs in one batch submission, and in one insert statement: a larger `enqueueMany` goes as several statements
   * in one transaction.
   */
  maxBatchSize: number;
  /**
   * Most distinct queue names the metrics label by, per process: jobs of queues seen after the first this many are
   * counted under `queue="(other)"`, so `/metrics` stays bounded however many queues the table holds.
   */
  metricsMaxQueues: number;
  /**
   * Recurring jobs besides those handlers declare (`@JobHandler(type, { schedules })`): each tick of a
   * schedule enqueues one job, exactly once across all instances. See CronScheduler.
   */
  schedules: CronScheduleDefinition[];
  /** Run the checked-in migrations at start-up. */
  migrate: boolean;
}
