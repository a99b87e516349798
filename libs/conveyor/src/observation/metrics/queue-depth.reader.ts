import { Injectable, Logger } from '@nestjs/common';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { LogRecord } from '../logging/log-record';
import { jobCountByQueue } from '../../storage/statements/job-count-by-queue.sql';
import { run } from '../../storage/statements/statement';

/** Jobs of one queue in one status. */
export interface QueueDepth {
  queue: string;
  status: string;
  count: number;
}

/**
 * Counts are reused for this long. Scrapers (often two, for redundancy) each ask every 15-60 s; the
 * cache bounds the database work to one grouped statement per second whatever they do, and is short
 * enough that a scrape never shows a stale backlog.
 */
const MAX_AGE_MS = 1_000;

/** A scrape does not wait longer than this on the database; it then shows no depth at all. */
const TIMEOUT_MS = 2_000;

/**
 * Reads job counts per queue and status for the depth gauge with one grouped statement, shared by
 * concurrent scrapes and cached for a second. Never throws: while the database cannot answer it returns
 * null (and says so once per outage in the log), so the rest of `/metrics` still works.
 */
@Injectable()
export class QueueDepthReader {
  private readonly logger = new Logger('Conveyor:Metrics');
  private cached: { at: number; depths: QueueDepth[] } | null = null;
  private inFlight: Promise<QueueDepth[] | null> | null = null;
  private failing = false;

  constructor(private readonly db: ConveyorDatabase) {}

  read(): Promise<QueueDepth[] | null> {
    if (this.cached && Date.now() - this.cached.at < MAX_AGE_MS) return Promise.resolve(this.cached.depths);
    this.inFlight ??= this.query().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private async query(): Promise<QueueDepth[] | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    });
    try {
      const { rows } = await Promise.race([run<QueueDepth>(this.db.pool, jobCountByQueue(this.db.tables)), timeout]);
      this.cached = { at: Date.now(), depths: rows };
      this.failing = false;
      return rows;
    } catch (err) {
      if (!this.failing) this.logger.warn(new LogRecord('Queue depth unavailable for /metrics', { error: (err as Error).message }));
      this.failing = true;
      this.cached = null;
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}
