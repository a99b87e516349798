/** Where a job counts against the caps: its queue and its type. */
export interface CappedJob {
  queue: string;
  type: string;
}

/** A job type's cap: at most `concurrency` of its jobs at once in this process (null: no cap of its own). */
export interface TypeCap {
  type: string;
  concurrency: number | null;
}

/** What a claim may ask for under the caps. */
export interface ClaimScope {
  /** The types still under their caps. */
  types: string[];
  /** The queues at their caps. */
  excludedQueues: string[];
  /** Some type or queue was left out for its cap: a slot freeing up there may find work waiting. */
  capped: boolean;
}

/**
 * The per-queue (`queueConcurrency`) and per-type (a handler's `concurrency`) caps of one worker pool: how many
 * jobs run in each queue and of each type, whether a job may start now, and what a claim must leave out. A claimed
 * job waiting for a slot counts against its caps for claims (it will run here), not for starting.
 */
export class ConcurrencyCaps {
  private readonly runningByQueue = new Map<string, number>();
  private readonly runningByType = new Map<string, number>();

  constructor(private readonly queueLimits: Readonly<Record<string, number>>) {}

  started(job: CappedJob): void {
    bump(this.runningByQueue, job.queue, 1);
    bump(this.runningByType, job.type, 1);
  }

  ended(job: CappedJob): void {
    bump(this.runningByQueue, job.queue, -1);
    bump(this.runningByType, job.type, -1);
  }

  /** Whether `job` may start now: its queue and its type (capped at `typeLimit`) are under their caps. */
  mayStart(job: CappedJob, typeLimit: number | null): boolean {
    const queueLimit = this.queueLimits[job.queue];
    if (queueLimit !== undefined && (this.runningByQueue.get(job.queue) ?? 0) >= queueLimit) return false;
    return typeLimit === null || (this.runningByType.get(job.type) ?? 0) < typeLimit;
  }

  /** What a claim may take for `types`, with `buffered` jobs claimed and waiting to start. */
  claimScope(types: readonly TypeCap[], buffered: Iterable<CappedJob>): ClaimScope {
    const byType = new Map(this.runningByType);
    const byQueue = new Map(this.runningByQueue);
    for (const job of buffered) {
      bump(byType, job.type, 1);
      bump(byQueue, job.queue, 1);
    }
    const open = types.filter((t) => t.concurrency === null || (byType.get(t.type) ?? 0) < t.concurrency).map((t) => t.type);
    const excludedQueues = Object.entries(this.queueLimits)
      .filter(([queue, limit]) => (byQueue.get(queue) ?? 0) >= limit)
      .map(([queue]) => queue);
    return { types: open, excludedQueues, capped: excludedQueues.length > 0 || open.length < types.length };
  }
}

function bump(map: Map<string, number>, key: string, by: number): void {
  map.set(key, (map.get(key) ?? 0) + by);
}
