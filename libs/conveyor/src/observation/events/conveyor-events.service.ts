import { Injectable } from '@nestjs/common';
import type { CommittedInsert } from '../../submission/insert-jobs';
import { Job } from '../../job/job';
import { JobStatus } from '../../job/job-status';

/**
 * How an attempt ended, as written: `failed` will be retried, `snoozed` asked to run later (the attempt
 * does not count), `handed_back` was returned to the queue at shutdown, unrun or unfinished.
 */
export type JobOutcome = 'completed' | 'failed' | 'snoozed' | 'dead' | 'cancelled' | 'handed_back';

/** Everything the engine announces, for metrics, logs and tests. Listeners must not throw or block. */
export interface ConveyorEventMap {
  /** Jobs were submitted (one event per statement). */
  submitted: [jobs: Job[]];
  /**
   * An insert this instance ran on its own pool has committed: local workers may claim its jobs without
   * waiting for the NOTIFY it also sent (one per statement; not for inserts in a caller's transaction, nor for
   * quiet ones, which send no NOTIFY and have their claim sent right behind them: LocalPickup).
   */
  inserted: [insert: CommittedInsert];
  /** A claim statement returned. */
  claimed: [jobs: Job[], requested: number];
  /** A handler started; `readyAt` is when the job became due. */
  started: [job: Job, readyAt: Date];
  /** An attempt's outcome was written. */
  finished: [job: Job, status: JobStatus, durationMs: number, outcome: JobOutcome];
  /** A waiting job was cancelled through the API (a handler cancelling its own job is a `finished` outcome). */
  cancelled: [job: Job];
  /** An outcome or heartbeat was refused because the claim had been lost. */
  stale: [jobId: string, worker: string];
  /** The sweeper returned expired leases. */
  rescued: [count: number];
  /** The maintenance leader finished a round of queries (lease rescue, retention). */
  maintained: [];
  /** A job this worker finished went back to waiting; it is due at `at` (epoch ms). */
  requeued: [at: number];
  /** A slot or buffer space freed up: the poller may claim more. */
  capacity: [];
}

type Listener = (...args: never[]) => void;

/**
 * Typed in-process event bus of the engine.
 *
 * Each event's listeners are kept in an array that is replaced, never changed, when a listener comes or goes,
 * so `emit` walks the array it finds without copying it: a listener added during an emit is first called by the
 * next one, and one removed during an emit is still called by this one (as with Node's EventEmitter). Node's
 * EventEmitter copies the listener array on every emit once an event has two listeners, and `started`,
 * `finished` and `capacity` fire once per job: ~170 of the ~5,600 bytes a draining worker allocated per job.
 */
@Injectable()
export class ConveyorEvents {
  private readonly listeners = new Map<keyof ConveyorEventMap, readonly Listener[]>();

  on<K extends keyof ConveyorEventMap>(event: K, listener: (...args: ConveyorEventMap[K]) => void): () => void {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener as Listener]);
    return () => this.off(event, listener as Listener);
  }

  emit<K extends keyof ConveyorEventMap>(event: K, ...args: ConveyorEventMap[K]): void {
    const listeners = this.listeners.get(event);
    if (listeners === undefined) return;
    for (const listener of listeners) (listener as (...a: ConveyorEventMap[K]) => void)(...args);
  }

  private off(event: keyof ConveyorEventMap, listener: Listener): void {
    const listeners = this.listeners.get(event) ?? [];
    const at = listeners.indexOf(listener);
    if (at < 0) return;
    const rest = listeners.filter((_, i) => i !== at);
    if (rest.length === 0) this.listeners.delete(event);
    else this.listeners.set(event, rest);
  }
}
