import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ConveyorOptionsInput } from '@conveyor/core';

const ROOT = join(__dirname, '..', '..');

/** A worker process started by a test. */
export interface SpawnedWorker {
  proc: ChildProcess;
  /** Resolves when the worker is bootstrapped and claiming. */
  ready: Promise<void>;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  stderr(): string;
  /** Everything printed so far on stdout and stderr (Nest's logger writes warnings to stdout). */
  output(): string;
  /** Resolves when the process has printed a line containing `text` on stdout. */
  printed(text: string): Promise<void>;
  /** The HTTP port it serves on (with `http: true`), once ready. */
  port(): number | undefined;
}

/** Starts test/support/worker-process.ts as its own OS process. */
export function spawnWorker(opts: {
  url: string;
  /** Where the recording handler writes invocations (default `url`): past a pooler a test takes down. */
  recorderUrl?: string;
  schema: string;
  engine: ConveyorOptionsInput;
  poolSize?: number;
  /** Connect timeout of its pool and of the engine's own connections (default: pg's, none; the engine's, 5 s). */
  connectTimeoutMs?: number;
  /** application_name of its connections (the listener and leader add `:listener` / `:leader`). */
  appName?: string;
  /** Also serve the REST API and health endpoints; `ready` then carries the port (SpawnedWorker.port). */
  http?: boolean;
  /** Options for node itself, e.g. `--max-old-space-size=128`. */
  nodeArgs?: string[];
}): SpawnedWorker {
  const proc = spawn(
    process.execPath,
    [...(opts.nodeArgs ?? []), '-r', join(ROOT, 'test/support/register-ts.js'), join(ROOT, 'test/support/worker-process.ts')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        WORKER_DATABASE_URL: opts.url,
        WORKER_RECORDER_URL: opts.recorderUrl ?? '',
        WORKER_SCHEMA: opts.schema,
        WORKER_ENGINE: JSON.stringify(opts.engine),
        WORKER_POOL_SIZE: String(opts.poolSize ?? 6),
        WORKER_CONNECT_TIMEOUT_MS: opts.connectTimeoutMs === undefined ? '' : String(opts.connectTimeoutMs),
        WORKER_APP_NAME: opts.appName ?? 'conveyor-test-worker',
        WORKER_HTTP: opts.http ? '1' : '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  let out = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of [...waiters])
      if (out.includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  });
  const printed = (text: string) =>
    out.includes(text) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ text, resolve }));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const ready = new Promise<void>((resolve, reject) => {
    void printed('"event":"ready"').then(resolve);
    void exited.then((code) => reject(new Error(`worker exited (${code}) before it was ready:\n${err}`)));
  });
  ready.catch(() => undefined);
  const port = () => {
    const line = out.split('\n').find((l) => l.includes('"event":"ready"'));
    return line ? (JSON.parse(line) as { port?: number }).port : undefined;
  };
  return { proc, ready, exited, stderr: () => err, output: () => out + err, printed, port };
}
