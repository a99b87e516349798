import { Job } from '../job/job';

/** What of a job counts against the caps: its queue and its type. */
type JobGroups = Pick<Job, 'queue' | 'type'>;

/** A job type's cap, a handler's `concurrency`: at most that many of its jobs at once in this process (null: none). */
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
  /**
   * How many jobs the types in scope may still start between them when every one of them is capped, null when one is
   * not: a claim that took more would hold jobs this process cannot run for a while, which another may be free to.
   */
  room: number | null;
}

/**
 * The per-queue (`queueConcurrency`) and per-type (a handler's `concurrency`) caps of one worker pool: how many
 * jobs run in each queue and of each type, whether a job may start now, and what a claim must leave out. A claimed
 * job waiting for a slot counts against its caps for claims (it will run here), not for starting.
 */
export class ConcurrencyCaps {
  private readonly runningByQueue = new Map<string, number>();
  private readonly runningByType = new Map<string, number>();

  /** `queueCaps`: the engine's `queueConcurrency`. */
  constructor(private readonly queueCaps: Readonly<Record<string, number>>) {}

  started(job: JobGroups): void {
    bump(this.runningByQueue, job.queue, 1);
    bump(this.runningByType, job.type, 1);
  }

  ended(job: JobGroups): void {
    bump(this.runningByQueue, job.queue, -1);
    bump(this.runningByType, job.type, -1);
  }

  /** Whether `job` may start now: its queue and its type (whose cap is `typeCap`) are under their caps. */
  mayStart(job: JobGroups, typeCap: number | null): boolean {
    const queueCap = this.queueCaps[job.queue];
    if (queueCap !== undefined && (this.runningByQueue.get(job.queue) ?? 0) >= queueCap) return false;
    return typeCap === null || (this.runningByType.get(job.type) ?? 0) < typeCap;
  }

  /** What a claim may take of the types in `typeCaps`, with `buffered` jobs claimed and waiting to start. */
  claimScope(typeCaps: readonly TypeCap[], buffered: Iterable<JobGroups>): ClaimScope {
    const byType = new Map(this.runningByType);
    const byQueue = new Map(this.runningByQueue);
    for (const job of buffered) {
      bump(byType, job.type, 1);
      bump(byQueue, job.queue, 1);
    }
    const inScope = typeCaps.filter((t) => t.concurrency === null || (byType.get(t.type) ?? 0) < t.concurrency);
    let room: number | null = 0;
    for (const t of inScope) room = t.concurrency === null || room === null ? null : room + t.concurrency - (byType.get(t.type) ?? 0);
    const excludedQueues = Object.entries(this.queueCaps)
      .filter(([queue, cap]) => (byQueue.get(queue) ?? 0) >= cap)
      .map(([queue]) => queue);
    return {
      types: inScope.map((t) => t.type),
      excludedQueues,
      capped: excludedQueues.length > 0 || inScope.length < typeCaps.length,
      room,
    };
  }
}

function bump(map: Map<string, number>, key: string, by: number): void {
  map.set(key, (map.get(key) ?? 0) + by);
}
