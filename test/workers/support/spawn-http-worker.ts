import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** An HTTP worker process started by a test. */
export interface HttpWorkerProcess {
  proc: ChildProcess;
  workerId: string;
  /** Resolves when the worker loop is running. */
  ready: Promise<void>;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  exited: Promise<number | string>;
  /** Every JSON event line it printed so far. */
  events(): Array<Record<string, unknown>>;
  /** When (Date.now()) this process read `event`, one of events(). */
  at(event: Record<string, unknown>): number;
  /** Resolves with the first event (past or future) for which `match` holds. */
  event(match: (e: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  output(): string;
}

/** Starts test/workers/support/http-worker.process.ts: `runWorker` in a Node process of its own. */
export function spawnHttpWorker(opts: {
  baseUrl: string;
  queue: string;
  workerId: string;
  concurrency?: number;
  leaseMs?: number;
  apiKey?: string;
  /** The client's request timeout (default the client's). */
  timeoutMs?: number;
  /** Wraps the command, e.g. `['ip', 'netns', 'exec', 'ns1']` to run it on another host. */
  prefix?: string[];
  /** How far the worker's clock (`Date.now()`) is off the service's: a machine whose clock drifted. */
  clockOffsetMs?: number;
}): HttpWorkerProcess {
  const command = [process.execPath, '-r', join(ROOT, 'test/support/register-ts.js'), join(__dirname, 'http-worker.process.ts')];
  const [file, ...args] = [...(opts.prefix ?? []), ...command];
  const proc = spawn(file, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      CONVEYOR_URL: opts.baseUrl,
      WORKER_QUEUE: opts.queue,
      WORKER_ID: opts.workerId,
      WORKER_CONCURRENCY: String(opts.concurrency ?? 1),
      WORKER_LEASE_MS: String(opts.leaseMs ?? 30_000),
      WORKER_API_KEY: opts.apiKey ?? '',
      WORKER_TIMEOUT_MS: opts.timeoutMs === undefined ? '' : String(opts.timeoutMs),
      WORKER_CLOCK_OFFSET_MS: String(opts.clockOffsetMs ?? 0),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const events: Array<Record<string, unknown>> = [];
  const readAt = new WeakMap<Record<string, unknown>, number>();
  const waiters: Array<{ match: (e: Record<string, unknown>) => boolean; resolve: (e: Record<string, unknown>) => void }> = [];
  let partial = '';
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      const e = JSON.parse(line) as Record<string, unknown>;
      events.push(e);
      readAt.set(e, Date.now());
      for (const w of [...waiters]) {
        if (w.match(e)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(e);
        }
      }
    }
  });
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const event = (match: (e: Record<string, unknown>) => boolean) => {
    const seen = events.find(match);
    return seen ? Promise.resolve(seen) : new Promise<Record<string, unknown>>((resolve) => waiters.push({ match, resolve }));
  };
  const ready = new Promise<void>((resolve, reject) => {
    void event((e) => e.event === 'ready').then(() => resolve());
    void exited.then((code) => reject(new Error(`HTTP worker exited (${code}) before it was ready:\n${err}`)));
  });
  ready.catch(() => undefined);
  return {
    proc,
    workerId: opts.workerId,
    ready,
    exited,
    events: () => [...events],
    at: (e) => readAt.get(e)!,
    event,
    output: () => out + err,
  };
}
