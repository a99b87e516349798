import { Injectable } from '@nestjs/common';
import { isWellFormedName, NAME_RULE } from '../config/name-rule';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { JobValidationError } from '../errors/job-request.errors';
import { jobsNotifyReady, jobThroughputByMinute, queueSetPaused, queueStats, run } from '../storage/statements';
import { JobStatus } from '../job/job-status';
import { QueueThroughput, ThroughputReport } from './queue-throughput.interface';
import { SharedReads, SharedReadsOptions } from './shared-reads';

/** One queue's state, as `GET /queues` shows it. */
export interface QueueSummary {
  name: string;
  paused: boolean;
  counts: Record<JobStatus, number>;
  /** Jobs due now and waiting for a worker. */
  ready: number;
  /** Seconds the oldest ready job has been waiting; null when none is ready. */
  oldestReadyAgeSeconds: number | null;
}

const MINUTE_MS = 60_000;

/**
 * Both views count rows whose number grows with the table (every job of every queue; every job finished in the
 * window), and the dashboard asks for both every few seconds per open tab and after live events. Answers are shared
 * by all requests of this process: reused for at least a second, and for four times as long as they took to read,
 * so the database spends at most a fifth of its time on each view however many tabs are open, and a small table's
 * counts stay at most a second old. Bounded so that a very slow read is still redone twice a minute.
 */
const VIEW_REUSE: SharedReadsOptions = { minAgeMs: 1_000, maxAgeMs: 30_000, reuseFactor: 4 };

/** Queue-level views and controls. */
@Injectable()
export class QueuesService {
  private readonly summaryReads = new SharedReads<'all', QueueSummary[]>(VIEW_REUSE);
  private readonly throughputReads = new SharedReads<number, ThroughputReport>(VIEW_REUSE);

  constructor(private readonly db: ConveyorDatabase) {}

  /** Every queue, by name; shared and reused as VIEW_REUSE says. */
  summaries(): Promise<QueueSummary[]> {
    return this.summaryReads.read('all', () => this.readSummaries());
  }

  /**
   * Jobs completed and gone DEAD per queue and minute over the last `minutes` minutes (1-1440), with
   * empty minutes filled in, so a chart can draw the series as is. Shared and reused as VIEW_REUSE says.
   */
  throughput(minutes: number): Promise<ThroughputReport> {
    return this.throughputReads.read(minutes, () => this.readThroughput(minutes));
  }

  private async readSummaries(): Promise<QueueSummary[]> {
    const { rows } = await run<{
      queue: string;
      status: JobStatus | null;
      count: number;
      oldest_ready: Date | null;
      ready: number;
      paused: boolean;
      now: Date;
    }>(this.db.pool, queueStats(this.db.tables));
    const byQueue = new Map<string, QueueSummary>();
    for (const r of rows) {
      let s = byQueue.get(r.queue);
      if (!s) {
        const counts = Object.fromEntries(Object.values(JobStatus).map((st) => [st, 0])) as Record<JobStatus, number>;
        s = { name: r.queue, paused: r.paused, counts, ready: 0, oldestReadyAgeSeconds: null };
        byQueue.set(r.queue, s);
      }
      if (r.status === null) continue;
      s.counts[r.status] = r.count;
      s.ready += r.ready;
      if (r.oldest_ready) {
        const age = Math.max(0, (r.now.getTime() - r.oldest_ready.getTime()) / 1000);
        s.oldestReadyAgeSeconds = Math.max(s.oldestReadyAgeSeconds ?? 0, age);
      }
    }
    return [...byQueue.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  private async readThroughput(minutes: number): Promise<ThroughputReport> {
    const { rows } = await run<{ queue: string; minute: Date; completed: number; failed: number; since: Date; now: Date }>(
      this.db.pool,
      jobThroughputByMinute(this.db.tables, minutes),
    );
    // Without rows the window still starts at the database's minute; this process's clock is close enough.
    const since = rows[0]?.since.getTime() ?? Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS - (minutes - 1) * MINUTE_MS;
    const byQueue = new Map<string, QueueThroughput>();
    for (const r of rows) {
      let q = byQueue.get(r.queue);
      if (!q) {
        const perMinute = Array.from({ length: minutes }, (_, i) => ({
          minute: new Date(since + i * MINUTE_MS).toISOString(),
          completed: 0,
          failed: 0,
        }));
        q = { name: r.queue, perMinute };
        byQueue.set(r.queue, q);
      }
      const slot = q.perMinute[Math.round((r.minute.getTime() - since) / MINUTE_MS)];
      if (!slot) continue;
      slot.completed += r.completed;
      slot.failed += r.failed;
    }
    const queues = [...byQueue.values()].sort((a, b) => a.name.localeCompare(b.name));
    return { minutes, since: new Date(since).toISOString(), queues };
  }

  /**
   * Pauses (true) or resumes (false) a queue on every instance. A pause also tells listening instances to hand back
   * the queue's jobs they claimed ahead and have not started (see queueSetPaused).
   */
  async setPaused(queue: string, paused: boolean): Promise<{ name: string; paused: boolean }> {
    if (!isWellFormedName(queue)) {
      throw new JobValidationError('Invalid queue', [{ field: 'queue', problems: [NAME_RULE] }]);
    }
    const { rows } = await run<{ name: string; paused: boolean }>(
      this.db.pool,
      queueSetPaused(this.db.tables, queue, paused, this.db.channel),
    );
    // The caller's next look at the queues shows what it just did, even if the wake-up below fails.
    this.summaryReads.forget();
    // Workers that found nothing to claim while it was paused sleep until notified: wake them.
    if (!paused) await run(this.db.pool, jobsNotifyReady(this.db.channel));
    return { name: rows[0].name, paused: rows[0].paused };
  }
}
