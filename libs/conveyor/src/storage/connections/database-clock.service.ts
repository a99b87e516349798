import { Injectable } from '@nestjs/common';

/** A reading older than this gives way to the next, however long that one's round trip: clocks drift. */
const READING_TTL_MS = 5 * 60_000;

/**
 * This host's estimate of the database's clock. Due times (run_at) are the database's and a claim sees a job once
 * the database's now() has reached them, while timers run on this host: a host clock ahead of the database's would
 * fire them early, and the claim would miss the job.
 *
 * A reading of the database's clock taken during a round trip gives the offset between the two to within half the
 * round trip. The reading with the shortest round trip is kept, as NTP keeps its best sample, until it is older than
 * READING_TTL_MS. Before the first reading the offset is 0: the clocks are taken to agree.
 */
@Injectable()
export class DatabaseClock {
  private offsetMs = 0;
  private roundTripMs = Infinity;
  private readAt = -Infinity;

  /** The database's clock now, as this host estimates it: epoch ms, truncated like Date.now(). */
  now(): number {
    return Math.floor(Date.now() + this.offsetMs);
  }

  /** The database's clock minus this host's, in ms, as last estimated. */
  get offset(): number {
    return this.offsetMs;
  }

  /** The database read `databaseNowMs` (its clock_timestamp(), epoch ms) for a statement sent and answered then. */
  read(databaseNowMs: number, sentAt: number, answeredAt: number): void {
    const roundTripMs = answeredAt - sentAt;
    if (roundTripMs > this.roundTripMs && answeredAt - this.readAt < READING_TTL_MS) return;
    this.offsetMs = databaseNowMs - (sentAt + answeredAt) / 2;
    this.roundTripMs = roundTripMs;
    this.readAt = answeredAt;
  }
}
