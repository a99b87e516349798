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
}

/** Starts test/support/worker-process.ts as its own OS process. */
export function spawnWorker(opts: { url: string; schema: string; engine: ConveyorOptionsInput; poolSize?: number }): SpawnedWorker {
  const proc = spawn(process.execPath, ['-r', join(ROOT, 'test/support/register-ts.js'), join(ROOT, 'test/support/worker-process.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      WORKER_DATABASE_URL: opts.url,
      WORKER_SCHEMA: opts.schema,
      WORKER_ENGINE: JSON.stringify(opts.engine),
      WORKER_POOL_SIZE: String(opts.poolSize ?? 6),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"event":"ready"')) resolve();
    });
    void exited.then((code) => reject(new Error(`worker exited (${code}) before it was ready:\n${err}`)));
  });
  ready.catch(() => undefined);
  return { proc, ready, exited, stderr: () => err };
}
