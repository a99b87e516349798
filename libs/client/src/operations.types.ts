/** A cron schedule as `GET /schedules` describes it. Times are ISO 8601 strings (UTC). */
export interface Schedule {
  /** The schedule's unique name. */
  name: string;
  /** Its cron expression. */
  cron: string;
  /** The IANA time zone the expression is read in. */
  timezone: string;
  /** The job type each tick enqueues, and its queue. */
  type: string;
  queue: string;
  /** How many missed ticks a downtime enqueues (a pause enqueues none). */
  catchUp: number;
  paused: boolean;
  pausedAt: string | null;
  /** The last tick that enqueued a job, or null before the first. */
  lastTick: string | null;
  /** The next tick, or null while paused. */
  nextTick: string | null;
}

/** A running Conveyor instance as `GET /instances` lists it. Times are ISO 8601 strings (UTC). */
export interface Instance {
  /** Its worker id (`locked_by` of the jobs it runs). */
  id: string;
  host: string;
  pid: number;
  /** The Conveyor version it runs. */
  version: string;
  /** False for an API-only instance. */
  runsWorkers: boolean;
  concurrency: number;
  /** Jobs it holds now. */
  running: number;
  queues: string[];
  types: string[];
  /** Whether it is the maintenance leader. */
  leader: boolean;
  startedAt: string;
  lastSeen: string;
  /** When it leaves the list unless it is seen again. */
  expiresAt: string;
}
