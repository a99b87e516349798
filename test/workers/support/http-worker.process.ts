/**
 * An external worker as its own OS process: `runWorker` from @conveyor/client over the service's HTTP
 * worker endpoints, with nothing of the engine loaded. Started by spawnHttpWorker.
 * Environment: CONVEYOR_URL, WORKER_QUEUE, WORKER_ID, WORKER_CONCURRENCY, WORKER_LEASE_MS, WORKER_API_KEY,
 * WORKER_TIMEOUT_MS (the client's request timeout), WORKER_CLOCK_OFFSET_MS (how far this process's `Date.now()` is off).
 * Prints one JSON line per event: `ready`, `started` (a handler began: id, attempt), `aborted` (its signal fired:
 * id, attempt, reason), `returned` (it returned: id, attempt), `error` (one the worker survived), `stopped`.
 * SIGTERM stops it gracefully (running handlers finish, exit 0).
 */
import { ConveyorClient, RetryLaterError, runWorker } from '@conveyor/client';
import { HttpWorkerPayload } from './http-worker-payload';

function print(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

const clockOffsetMs = Number(process.env.WORKER_CLOCK_OFFSET_MS ?? 0);
if (clockOffsetMs !== 0) {
  const serviceNow = Date.now.bind(Date);
  Date.now = () => serviceNow() + clockOffsetMs;
}

const workerId = process.env.WORKER_ID!;
const worker = runWorker<HttpWorkerPayload>(
  process.env.WORKER_QUEUE!,
  async (job, ctx) => {
    print({ event: 'started', id: job.id, attempt: ctx.attempt });
    ctx.signal.addEventListener('abort', () =>
      print({ event: 'aborted', id: job.id, attempt: ctx.attempt, reason: (ctx.signal.reason as Error | undefined)?.name }),
    );
    const p = job.payload ?? {};
    if (p.blockOnAttempt === ctx.attempt) await new Promise((resolve) => setTimeout(resolve, 3_600_000));
    if (p.sleepMs) await new Promise((resolve) => setTimeout(resolve, p.sleepMs));
    if (p.retryLaterMs !== undefined) throw new RetryLaterError(p.retryLaterMs, 'not yet');
    if (p.failTimes !== undefined && ctx.attempt <= p.failTimes) throw new TypeError(`attempt ${ctx.attempt} failed`);
    print({ event: 'returned', id: job.id, attempt: ctx.attempt });
    return { handledBy: workerId, attempt: ctx.attempt, echo: p.echo ?? null };
  },
  {
    client: new ConveyorClient({
      baseUrl: process.env.CONVEYOR_URL!,
      apiKey: process.env.WORKER_API_KEY || undefined,
      timeoutMs: process.env.WORKER_TIMEOUT_MS ? Number(process.env.WORKER_TIMEOUT_MS) : undefined,
    }),
    workerId,
    concurrency: Number(process.env.WORKER_CONCURRENCY ?? 1),
    leaseMs: Number(process.env.WORKER_LEASE_MS ?? 30_000),
    idleBackoff: { minMs: 20, maxMs: 200 },
    onError: (err) => print({ event: 'error', message: String(err) }),
  },
);

process.once('SIGTERM', () => {
  void worker.stop().then(
    () => {
      print({ event: 'stopped' });
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`${String(err)}\n`);
      process.exit(1);
    },
  );
});
worker.done.catch((err: unknown) => {
  process.stderr.write(`worker stopped: ${String(err)}\n`);
  process.exit(1);
});
print({ event: 'ready', pid: process.pid });
