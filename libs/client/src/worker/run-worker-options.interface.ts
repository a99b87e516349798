import { ConveyorClient } from '../conveyor-client';
import { ClaimedJob } from '../worker-protocol.types';

/** How `runWorker` reaches the server and paces itself. Give `client`, or `baseUrl` (and `apiKey`). */
export interface RunWorkerOptions {
  client?: ConveyorClient | undefined;
  baseUrl?: string | undefined;
  /** A key with the `worker` (or `admin`) role, when the server has API keys configured. */
  apiKey?: string | undefined;
  /** Names this worker in the jobs it holds and their error history (default host:pid:random). */
  workerId?: string | undefined;
  /** Jobs handled at once (default 1); each claim asks for the free slots only. */
  concurrency?: number | undefined;
  /** Only these of the server's external types (default: all of them). */
  types?: string[] | undefined;
  /** Lease per job (default 30 000 ms): the job is rescued this long after the last heartbeat. */
  leaseMs?: number | undefined;
  /** Heartbeat period per running job (default a third of `leaseMs`). */
  heartbeatIntervalMs?: number | undefined;
  /** Pause after an empty claim: starts at `minMs`, doubles up to `maxMs` (default 100 → 5 000 ms). */
  idleBackoff?: { minMs: number; maxMs: number } | undefined;
  /** On stop, how long running handlers may finish before their jobs are handed back (default 10 000 ms). */
  shutdownGraceMs?: number | undefined;
  /** Aborting it stops the worker, like `stop()`. */
  signal?: AbortSignal | undefined;
  /** Told about errors the worker survives (a failed claim or report); default: console.warn. */
  onError?: ((error: unknown, job?: ClaimedJob) => void) | undefined;
}

/** A running worker. */
export interface WorkerHandle {
  readonly workerId: string;
  /** Jobs being handled now. */
  readonly running: number;
  /**
   * Stops claiming, lets running handlers finish (within `shutdownGraceMs`, after which their jobs are handed
   * back), and resolves once every outcome is reported — like `done`.
   */
  stop(): Promise<void>;
  /** Resolves when the worker has stopped; rejects with the error that stopped it (a 400, 401 or 403 on claim). */
  readonly done: Promise<void>;
}
