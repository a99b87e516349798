import { Injectable } from '@nestjs/common';
import { DatabaseClock } from '../storage/connections/database-clock.service';

/** What the poller does when told that a claim may find work (JobPoller implements it and attaches itself). */
export interface ClaimWaker {
  /** A slot or buffer space freed up. */
  capacityFreed(): void;
  /**
   * Jobs are, or will be, due by `at` (epoch ms, database clock): a claim sent once the database's clock has reached
   * `at` sees them. A caller that knows a due time only to the millisecond, truncated, passes the millisecond after.
   */
  jobsDueAt(at: number): void;
  /** Jobs are due now, by the database's clock as well (a claim sent now sees them). */
  jobsDueNow(): void;
  /**
   * This instance queried the database on its own account (its maintenance round, its LISTEN connection's probe):
   * the next fallback tick may be skipped, so that an idle instance makes one query per poll interval.
   */
  queriedDatabase(): void;
}

/**
 * The one way the engine's parts wake the poller, as River's `TriggerJobFetch`: the worker pool and the completer
 * when room frees up, the pool when a job it ran goes back to waiting, the maintenance round and the LISTEN probe
 * when they queried the database, the local pickup when an insert of this instance committed, the notification
 * listener when one of another's did.
 *
 * The callers cannot inject the poller (it depends on the pool, and the pool calls here), so the poller attaches
 * itself while it runs; while none is attached, every call does nothing. Whether a call turns into a claim is the
 * poller's decision (WakeRules).
 */
@Injectable()
export class ClaimTrigger {
  private waker: ClaimWaker | null = null;

  constructor(private readonly clock: DatabaseClock) {}

  /** The poller takes the calls until the returned function is called. */
  attach(waker: ClaimWaker): () => void {
    this.waker = waker;
    return () => {
      if (this.waker === waker) this.waker = null;
    };
  }

  /** Whether a poller is attached, i.e. running. */
  get attached(): boolean {
    return this.waker !== null;
  }

  capacityFreed(): void {
    this.waker?.capacityFreed();
  }

  jobsDueAt(at: number): void {
    this.waker?.jobsDueAt(at);
  }

  /**
   * A job went back to waiting, due `delayMs` after a write that has been answered: its run_at is the write's now()
   * plus the delay, so it is due by the millisecond after the database's clock now plus the delay.
   */
  jobsDueIn(delayMs: number): void {
    if (delayMs > 0) this.jobsDueAt(this.clock.now() + Math.ceil(delayMs) + 1);
    else this.jobsDueNow();
  }

  /** Jobs are due now: claim as soon as possible. */
  jobsDueNow(): void {
    this.waker?.jobsDueNow();
  }

  queriedDatabase(): void {
    this.waker?.queriedDatabase();
  }
}
