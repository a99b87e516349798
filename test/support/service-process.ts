import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';
import { join } from 'node:path';
import { findFreePort } from '../../libs/embedded-postgres/src/free-port';
import { waitFor } from './wait-for';

const ROOT = join(__dirname, '..', '..');

/** The service (apps/server) running as its own OS process. */
export interface ServiceProcess {
  proc: ChildProcess;
  /** `http://host:port` of its API. */
  baseUrl: string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<number | string>;
}

export interface ServiceProcessOptions {
  /** Environment of the service (DATABASE_URL and the rest); PORT is chosen here unless given. */
  env: Record<string, string>;
  /** Address the test reaches it on (default 127.0.0.1). */
  host?: string;
  /** Wraps the command, e.g. `['ip', 'netns', 'exec', 'ns1']` to run it on another host. */
  prefix?: string[];
  /** Checkout whose apps/server to run (default: this one), e.g. a worktree of an earlier commit. */
  root?: string;
  /** Milliseconds to wait for /health/live. */
  startTimeoutMs?: number;
}

/** The service's process, started and not waited for: for a start that is meant to fail. */
export interface SpawnedService {
  proc: ChildProcess;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  /** Everything it printed so far. */
  output(): string;
}

/**
 * Starts apps/server/src/main.ts (compiled on the fly, as `npm start` would run it) and waits until it answers
 * `/health/live`.
 */
export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const port = options.env.PORT ?? String(await findFreePort());
  const { proc, exited, output } = spawnService({ ...options, env: { ...options.env, PORT: port } });
  let ended: number | string | null = null;
  void exited.then((code) => (ended = code));
  const baseUrl = `http://${options.host ?? '127.0.0.1'}:${port}`;
  try {
    await waitFor(
      async () => {
        if (ended !== null) throw new Error(`the service exited (${ended}) before it answered:\n${output().slice(-4000)}`);
        const res = await fetch(`${baseUrl}/health/live`).catch(() => null);
        return res?.ok ?? false;
      },
      { timeoutMs: options.startTimeoutMs ?? 60_000, intervalMs: 100, message: 'the service to answer /health/live' },
    );
  } catch (err) {
    // The caller never gets a handle to stop it with.
    if (ended === null) proc.kill('SIGKILL');
    throw err;
  }
  return {
    proc,
    baseUrl,
    exited,
    output,
    stop: async () => {
      if (ended === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** Starts the service as startServiceProcess does, without waiting for it to answer. */
export function spawnService(options: ServiceProcessOptions): SpawnedService {
  const root = options.root ?? ROOT;
  const command = [process.execPath, '-r', join(root, 'test/support/register-ts.js'), join(root, 'apps/server/src/main.ts')];
  const [file, ...args] = [...(options.prefix ?? []), ...command];
  const spawnOptions: SpawnOptions = {
    cwd: root,
    // No drain delay unless a test asks for one: stop() should not wait for load balancers that are not there.
    env: { ...process.env, LOG_FORMAT: 'json', LOG_LEVEL: 'warn', SHUTDOWN_DRAIN_MS: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  };
  const proc = spawn(file, args, spawnOptions);
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { proc, exited, output: () => out };
}
