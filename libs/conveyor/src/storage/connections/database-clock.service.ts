import { Injectable } from '@nestjs/common';

/** Readings the estimate is chosen from: the last few, so that an old quick reading does not outlast the clocks' drift. */
const READINGS_KEPT = 6;
/**
 * Fastest rate at which the two clocks drift apart without a step (NTP slews a clock by at most 500 ppm), and the
 * millisecond Date.now() truncates: how far two readings' offsets may part beyond their round trips.
 */
const MAX_DRIFT = 500e-6;
const TRUNCATION_MS = 1;

interface Reading {
  offsetMs: number;
  roundTripMs: number;
  /** This host's clock when the answer came (Date.now()). */
  at: number;
}

/**
 * Whether two readings can both be true of clocks that did not step: each puts the offset within half its round trip
 * of its own middle, so their offsets differ by no more than those halves and the drift between them.
 */
function agree(a: Reading, b: Reading): boolean {
  const allowed = (a.roundTripMs + b.roundTripMs) / 2 + TRUNCATION_MS + MAX_DRIFT * Math.abs(a.at - b.at);
  return Math.abs(a.offsetMs - b.offsetMs) <= allowed;
}

/**
 * This host's estimate of the database's clock. Due times (run_at) are the database's and a claim sees a job once
 * the database's now() has reached them, while timers run on this host: a host clock ahead of the database's would
 * fire them early, and the claim would miss the job.
 *
 * A reading of the database's clock taken during a round trip gives the offset between the two clocks to within half
 * the round trip, taking it to be read halfway. Of the last READINGS_KEPT readings the one with the shortest round trip
 * is used, as NTP keeps its best sample: a round trip that waited for a connection or a lock is passed over. A reading
 * that cannot agree with the one in use (their offsets differ by more than their round trips and drift allow) means a
 * clock stepped, and the readings before it measured the old offset: they are forgotten at once, not after
 * READINGS_KEPT more readings, for an estimate behind by the step holds every due timer back by it (a cron tick
 * enqueued that much late, or skipped by its catch-up rule). Before the first reading the offset is 0: the clocks
 * are taken to agree.
 */
@Injectable()
export class DatabaseClock {
  private readonly readings: Reading[] = [];
  /** The reading the estimate rests on; none before the first. */
  private best: Reading | null = null;

  /** The database's clock now, as this host estimates it: epoch ms, truncated like Date.now(). */
  now(): number {
    return Math.floor(Date.now() + this.offset);
  }

  /** The database's clock minus this host's, in ms, as estimated. */
  get offset(): number {
    return this.best?.offsetMs ?? 0;
  }

  /**
   * How far, in ms, the estimate may be from the database's clock: half the round trip of the reading it rests on (the
   * database read its clock at some moment of the round trip, not necessarily halfway). 0 before the first reading.
   */
  get uncertaintyMs(): number {
    return (this.best?.roundTripMs ?? 0) / 2;
  }

  /**
   * The database read `databaseNowMs` (its clock_timestamp(), epoch ms) for a statement sent at `sentAt` and answered
   * at `answeredAt` (Date.now()). A reading over which this host's clock went back is no reading.
   */
  read(databaseNowMs: number, sentAt: number, answeredAt: number): void {
    const roundTripMs = answeredAt - sentAt;
    if (roundTripMs < 0) return;
    const reading = { offsetMs: databaseNowMs - (sentAt + answeredAt) / 2, roundTripMs, at: answeredAt };
    if (this.best && !agree(reading, this.best)) this.readings.length = 0;
    this.readings.push(reading);
    if (this.readings.length > READINGS_KEPT) this.readings.shift();
    let best = this.readings[0];
    for (const r of this.readings) if (r.roundTripMs <= best.roundTripMs) best = r;
    this.best = best;
  }
}
