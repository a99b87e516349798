import { Injectable } from '@nestjs/common';

/** Readings the estimate is chosen from: the last few, so that a step of either clock is soon forgotten. */
const READINGS_KEPT = 6;

interface Reading {
  offsetMs: number;
  roundTripMs: number;
}

/**
 * This host's estimate of the database's clock. Due times (run_at) are the database's and a claim sees a job once
 * the database's now() has reached them, while timers run on this host: a host clock ahead of the database's would
 * fire them early, and the claim would miss the job.
 *
 * A reading of the database's clock taken during a round trip gives the offset between the two clocks to within half
 * the round trip, taking it to be read halfway. Of the last READINGS_KEPT readings the one with the shortest round trip
 * is used, as NTP keeps its best sample: a round trip that waited for a connection or a lock is passed over. Before
 * the first reading the offset is 0: the clocks are taken to agree.
 */
@Injectable()
export class DatabaseClock {
  private readonly readings: Reading[] = [];
  private offsetMs = 0;
  private uncertainty = 0;

  /** The database's clock now, as this host estimates it: epoch ms, truncated like Date.now(). */
  now(): number {
    return Math.floor(Date.now() + this.offsetMs);
  }

  /** The database's clock minus this host's, in ms, as estimated. */
  get offset(): number {
    return this.offsetMs;
  }

  /**
   * How far, in ms, the estimate may be from the database's clock: half the round trip of the reading it rests on (the
   * database read its clock at some moment of the round trip, not necessarily halfway). 0 before the first reading.
   */
  get uncertaintyMs(): number {
    return this.uncertainty;
  }

  /**
   * The database read `databaseNowMs` (its clock_timestamp(), epoch ms) for a statement sent at `sentAt` and answered
   * at `answeredAt` (Date.now()). A reading over which this host's clock went back is no reading.
   */
  read(databaseNowMs: number, sentAt: number, answeredAt: number): void {
    const roundTripMs = answeredAt - sentAt;
    if (roundTripMs < 0) return;
    this.readings.push({ offsetMs: databaseNowMs - (sentAt + answeredAt) / 2, roundTripMs });
    if (this.readings.length > READINGS_KEPT) this.readings.shift();
    let best = this.readings[0];
    for (const r of this.readings) if (r.roundTripMs <= best.roundTripMs) best = r;
    this.offsetMs = best.offsetMs;
    this.uncertainty = best.roundTripMs / 2;
  }
}
