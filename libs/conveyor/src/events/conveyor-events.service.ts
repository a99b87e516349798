import { Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { Job } from '../jobs/job.entity';
import { JobStatus } from '../jobs/job-status';

/**
 * How an attempt ended, as written: `failed` will be retried, `snoozed` asked to run later (the attempt
 * does not count), `handed_back` was returned to the queue at shutdown, unrun or unfinished.
 */
export type JobOutcome = 'completed' | 'failed' | 'snoozed' | 'dead' | 'cancelled' | 'handed_back';

/** Everything the engine announces, for metrics, logs and tests. Listeners must not throw or block. */
export interface ConveyorEventMap {
  /** Jobs were submitted (one event per statement). */
  submitted: [jobs: Job[]];
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

/** Typed in-process event bus of the engine. */
@Injectable()
export class ConveyorEvents {
  private readonly emitter = new EventEmitter({ captureRejections: false });

  constructor() {
    this.emitter.setMaxListeners(50);
  }

  on<K extends keyof ConveyorEventMap>(event: K, listener: (...args: ConveyorEventMap[K]) => void): () => void {
    this.emitter.on(event, listener as (...args: unknown[]) => void);
    return () => this.emitter.off(event, listener as (...args: unknown[]) => void);
  }

  emit<K extends keyof ConveyorEventMap>(event: K, ...args: ConveyorEventMap[K]): void {
    this.emitter.emit(event, ...args);
  }
}
