import { Injectable, Logger } from '@nestjs/common';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { LogRecord } from '../logging/log-record';
import { jobCountByQueue } from '../../storage/statements/job-count-by-queue.sql';
import { jobOldestReadyByQueue } from '../../storage/statements/job-oldest-ready-by-queue.sql';
import { run } from '../../storage/statements/statement';

/** Jobs of one queue in one status. */
export interface QueueDepth {
  queue: string;
  status: string;
  count: number;
}

/** How long the oldest ready (claimable and due) job of one queue has waited. */
export interface QueueOldestReady {
  queue: string;
  ageSeconds: number;
}

/** What the database-wide queue gauges show, read together. */
export interface QueueGauges {
  depths: QueueDepth[];
  oldestReady: QueueOldestReady[];
}

/**
 * Counts are reused for this long. Scrapers (often two, for redundancy) each ask every 15-60 s; the
 * cache bounds the database work to one round per second whatever they do, and is short
 * enough that a scrape never shows a stale backlog.
 */
const MAX_AGE_MS = 1_000;

/** A scrape does not wait longer than this on the database; it then shows no queue gauges at all. */
const TIMEOUT_MS = 2_000;

/**
 * Reads the database-wide queue gauges — job counts per queue and status, and the age of each queue's oldest
 * ready job — with two grouped statements, shared by concurrent scrapes and cached for a second. Never throws:
 * while the database cannot answer it returns null (and says so once per outage in the log), so the rest of
 * `/metrics` still works.
 */
@Injectable()
export class QueueGaugesReader {
  private readonly logger = new Logger('Conveyor:Metrics');
  private cached: { at: number; gauges: QueueGauges } | null = null;
  private inFlight: Promise<QueueGauges | null> | null = null;
  private failing = false;

  constructor(private readonly db: ConveyorDatabase) {}

  read(): Promise<QueueGauges | null> {
    if (this.cached && Date.now() - this.cached.at < MAX_AGE_MS) return Promise.resolve(this.cached.gauges);
    this.inFlight ??= this.query().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private async query(): Promise<QueueGauges | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    });
    try {
      const [depths, oldest] = await Promise.race([
        Promise.all([
          run<QueueDepth>(this.db.pool, jobCountByQueue(this.db.tables)),
          run<QueueOldestReady>(this.db.pool, jobOldestReadyByQueue(this.db.tables)),
        ]),
        timeout,
      ]);
      const gauges = { depths: depths.rows, oldestReady: oldest.rows };
      this.cached = { at: Date.now(), gauges };
      this.failing = false;
      return gauges;
    } catch (err) {
      if (!this.failing) this.logger.warn(new LogRecord('Queue gauges unavailable for /metrics', { error: (err as Error).message }));
      this.failing = true;
      this.cached = null;
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}
