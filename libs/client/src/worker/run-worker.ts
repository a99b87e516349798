import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ConveyorClient } from '../conveyor-client';
import { sleep } from '../sleep';
import { JobRun } from './job-runner';
import { RunWorkerOptions, WorkerHandle } from './run-worker-options.interface';
import { WorkerHandler } from './worker-handler.types';
import { ClaimedJob } from '../worker-protocol.types';
import { isTransientFailure } from '../transient-failure';
import { claimRetryDelay } from './claim-backoff';

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_IDLE = { minMs: 100, maxMs: 5_000 };
const DEFAULT_GRACE_MS = 10_000;

/**
 * Works the jobs of one queue from outside the Conveyor service, over its HTTP worker endpoints.
 *
 * The loop claims only as many jobs as it has free slots (`concurrency`), runs each with its own heartbeat,
 * and reports its outcome under the claim's lease token (see JobRun). An empty claim makes it wait, longer
 * each time up to `idleBackoff.maxMs`; a claim that fails for network trouble, a 5xx or a 429 backs off
 * exponentially with jitter (honouring Retry-After) and tries again — at most 5 s apart while the service is away, so
 * that it claims again within 5 s of the service's return however long it was gone (see claimRetryDelay). Any other
 * failure — a claim refused as bad input or for a bad key (400, 401, 403), a request fetch would not send — cannot get
 * better by waiting: the worker stops and `done` rejects with that error.
 *
 * Stopping — `stop()` or the `signal` — ends claiming at once; running handlers get `shutdownGraceMs` to
 * finish, then their signals fire and their jobs are handed back (ready at once, the attempt refunded). A
 * worker process that dies instead simply stops heart-beating: the server rescues its jobs after the lease.
 *
 * @example
 * const worker = runWorker('thumbnails', async (job, ctx) => makeThumbnail(job.payload, ctx.signal), {
 *   baseUrl: 'http://conveyor:3000', apiKey: process.env.CONVEYOR_WORKER_KEY, concurrency: 4,
 * });
 * process.on('SIGTERM', () => void worker.stop());
 */
export function runWorker<P = unknown, R = unknown>(
  queue: string,
  handler: WorkerHandler<P, R>,
  options: RunWorkerOptions = {},
): WorkerHandle {
  const client = options.client ?? (options.baseUrl ? new ConveyorClient({ baseUrl: options.baseUrl, apiKey: options.apiKey }) : null);
  if (!client) throw new TypeError('runWorker needs options.client or options.baseUrl');
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? Math.floor(leaseMs / 3);
  if (heartbeatIntervalMs <= 0 || heartbeatIntervalMs >= leaseMs) throw new RangeError('heartbeatIntervalMs must be between 0 and leaseMs');
  const idle = options.idleBackoff ?? DEFAULT_IDLE;
  const graceMs = options.shutdownGraceMs ?? DEFAULT_GRACE_MS;
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const onError = options.onError ?? ((err: unknown) => console.warn(`[conveyor worker ${workerId}]`, err));

  const stopping = new AbortController();
  const runs = new Set<JobRun>();
  let slotFreed: () => void = () => undefined;
  const settings = { client, handler: handler as WorkerHandler, workerId, leaseMs, heartbeatIntervalMs, onError };

  const start = (run: JobRun) => {
    runs.add(run);
    void run.run().finally(() => {
      runs.delete(run);
      slotFreed();
    });
  };
  /** Resolves when a running job ends, or when the worker is told to stop. */
  const waitForSlot = () =>
    new Promise<void>((resolve) => {
      const wake = () => {
        stopping.signal.removeEventListener('abort', wake);
        resolve();
      };
      slotFreed = wake;
      stopping.signal.addEventListener('abort', wake, { once: true });
    });

  async function loop(): Promise<void> {
    let idleMs = 0;
    let failures = 0;
    while (!stopping.signal.aborted) {
      const free = concurrency - runs.size;
      if (free === 0) {
        await waitForSlot();
        continue;
      }
      try {
        // Not cut short by stop(): jobs the server claimed for an abandoned request would wait out their lease.
        // Whatever this claim returns still runs, within the shutdown grace period.
        // An answer later than a lease less a heartbeat interval is not waited for: a request a cut left hanging on a
        // dead connection would keep the next one from being sent on a live one. It is not aborted either: the server
        // may have claimed jobs for it, and a late answer still reaches JobRun, which hands them back at once.
        const claimSentAt = performance.now();
        const jobs = await claimWithin(
          client!.claim(queue, { workerId, max: free, leaseMs, types: options.types }),
          leaseMs - heartbeatIntervalMs,
          (late) => late.forEach((job) => start(new JobRun(job, settings, claimSentAt))),
        );
        failures = 0;
        if (jobs.length === 0) {
          idleMs = Math.min(idle.maxMs, idleMs === 0 ? idle.minMs : idleMs * 2);
          await sleep(idleMs, stopping.signal);
          continue;
        }
        idleMs = 0;
        for (const job of jobs) start(new JobRun(job, settings, claimSentAt));
      } catch (err) {
        if (!isTransientFailure(err)) throw err;
        onError(err);
        failures++;
        await sleep(claimRetryDelay(err, failures), stopping.signal);
      }
    }
  }

  /** After the loop: let running jobs finish within the grace period, then hand back the rest. */
  async function drain(): Promise<void> {
    stopping.abort();
    if (runs.size === 0) return;
    const allDone = () =>
      new Promise<void>((resolve) => {
        const check = () => (runs.size === 0 ? resolve() : void waitForSlot().then(check));
        check();
      });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([allDone(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const run of runs) run.handBack();
    await allDone();
  }

  const done = loop().then(
    () => drain(),
    async (err: unknown) => {
      await drain();
      throw err;
    },
  );
  done.catch(() => undefined); // the caller may only ever call stop(); an unobserved rejection must not crash it
  const stop = () => {
    stopping.abort();
    return done;
  };
  options.signal?.addEventListener('abort', () => void stop().catch(() => undefined), { once: true });
  if (options.signal?.aborted) void stop().catch(() => undefined);

  return {
    workerId,
    get running() {
      return runs.size;
    },
    stop,
    done,
  };
}

/** A claim's answer not waited for any longer; transient, as a request's own timeout is. */
class ClaimAnswerLateError extends Error {
  override readonly name = 'TimeoutError';
  constructor(waitedMs: number) {
    super(`No answer to the claim within ${Math.round(waitedMs)} ms; an answer that comes later is handed back`);
  }
}

/**
 * `claiming`'s jobs, or a ClaimAnswerLateError after `waitMs`; jobs that arrive after that go to `late` (whose JobRuns
 * see they came too late and hand them back), so that none waits out its lease on the server.
 */
function claimWithin(claiming: Promise<ClaimedJob[]>, waitMs: number, late: (jobs: ClaimedJob[]) => void): Promise<ClaimedJob[]> {
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(new ClaimAnswerLateError(waitMs));
    }, waitMs);
    claiming.then(
      (jobs) => {
        clearTimeout(timer);
        if (timedOut) late(jobs);
        else resolve(jobs);
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (!timedOut) reject(err);
      },
    );
  });
}
