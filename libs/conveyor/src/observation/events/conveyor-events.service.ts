import { Injectable } from '@nestjs/common';
import { Job } from '../../job/job';
import { JobStatus } from '../../job/job-status';

/**
 * How an attempt ended, as written: `failed` will be retried, `snoozed` asked to run later (the attempt
 * does not count), `handed_back` was returned to the queue unrun or unfinished (at shutdown, by an HTTP worker, or
 * past a full claim answer).
 */
export type JobOutcome = 'completed' | 'failed' | 'snoozed' | 'dead' | 'cancelled' | 'handed_back';

/**
 * What the engine announces for metrics, logs and tests. Listeners must not throw or block. Nothing here steers the
 * engine: what wakes the poller goes through the ClaimTrigger.
 */
export interface ConveyorEventMap {
  /** Jobs were submitted (one event per statement). */
  submitted: [jobs: Job[]];
  /** A claim statement returned. */
  claimed: [jobs: Job[], requested: number];
  /** A handler started; `readyAt` is when the job became due. */
  started: [job: Job, readyAt: Date];
  /**
   * An attempt's outcome was written; for `handed_back`, a claimed job was returned unrun (its `started` may not have
   * fired: a job past a full claim answer never reached its worker).
   */
  finished: [job: Job, status: JobStatus, durationMs: number, outcome: JobOutcome];
  /** A waiting job was cancelled through the API (a handler cancelling its own job is a `finished` outcome). */
  cancelled: [job: Job];
  /** An outcome or heartbeat was refused because the claim had been lost. */
  stale: [jobId: string, worker: string];
  /**
   * The sweeper rescued `count` jobs whose lease expired (one event per statement); `dead` are those of them that had
   * used their last attempt and are now DEAD (no worker wrote their outcome, so no `finished` fired for them).
   */
  rescued: [count: number, dead: ReadonlyArray<Pick<Job, 'queue' | 'type'>>];
}

/** A listener of any event, as stored; `on` and `emit` keep each event's own signature. */
type Listener = (...args: unknown[]) => void;

/**
 * Typed in-process event bus of the engine.
 *
 * Each event's listeners are kept in an array that is replaced, never changed, when a listener comes or goes,
 * so `emit` walks the array it finds without copying it: a listener added during an emit is first called by the
 * next one, and one removed during an emit is still called by this one (as with Node's EventEmitter, which copies
 * the array on every emit instead; `started` and `finished` fire once per job).
 */
@Injectable()
export class ConveyorEvents {
  private readonly listeners = new Map<keyof ConveyorEventMap, readonly Listener[]>();

  on<K extends keyof ConveyorEventMap>(event: K, listener: (...args: ConveyorEventMap[K]) => void): () => void {
    const stored = listener as unknown as Listener;
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), stored]);
    return () => this.off(event, stored);
  }

  emit<K extends keyof ConveyorEventMap>(event: K, ...args: ConveyorEventMap[K]): void {
    const listeners = this.listeners.get(event);
    if (listeners === undefined) return;
    for (const listener of listeners) listener(...args);
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
