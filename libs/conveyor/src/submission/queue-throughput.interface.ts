/** Jobs one queue finished in one minute. */
export interface ThroughputMinute {
  /** Start of the minute (ISO 8601, UTC). */
  minute: string;
  completed: number;
  /** Jobs that went DEAD in that minute. */
  failed: number;
}

/** One queue's finished jobs per minute, oldest minute first, every minute of the window present. */
export interface QueueThroughput {
  name: string;
  perMinute: ThroughputMinute[];
}

/** What `GET /queues/throughput` answers. */
export interface ThroughputReport {
  /** Length of the window in minutes; the last one is the current, partial minute. */
  minutes: number;
  /** Start of the first minute (ISO 8601, UTC). */
  since: string;
  /** Queues that finished at least one job in the window, by name. */
  queues: QueueThroughput[];
}
