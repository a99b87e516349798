import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DataDirectoryInUseError } from './data-directory-in-use.error';
import { EmbeddedPostgresStartError } from './embedded-postgres-start.error';

/**
 * Gets the data directory ready to start after an earlier run died without stopping its server.
 *
 * When a Node process is killed (SIGKILL, OOM, a crashed test run), `postmaster.pid` stays behind
 * and the server it names may still run as an orphan, holding the directory and its port. Three
 * cases, told apart with /proc:
 * - the pid is gone, or now belongs to an unrelated process: the file is stale and is removed.
 *   PostgreSQL would remove it too, except when the recycled pid belongs to the `postgres` user
 *   (e.g. a backend of a system server), where it refuses to start;
 * - a postmaster for this directory runs and its parent is a live Node process: someone is using
 *   it, and we refuse with {@link DataDirectoryInUseError};
 * - a postmaster for this directory runs orphaned: it is asked for a fast shutdown and awaited.
 *   PostgreSQL then recovers from its WAL on the next start as after any crash.
 */
export async function clearStalePostmaster(dataDir: string, log: (message: string) => void, shutdownTimeoutMs: number): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  const pid = await readPostmasterPid(pidFile);
  if (pid === undefined) return;

  if (!isAlive(pid) || !(await isPostmasterFor(pid, dataDir))) {
    log(`Removing stale ${pidFile} (pid ${pid} is not a PostgreSQL server for this directory).`);
    await rm(pidFile, { force: true });
    return;
  }
  if (await hasLiveNodeParent(pid)) throw new DataDirectoryInUseError(dataDir, pid);

  log(`Stopping orphaned PostgreSQL server (pid ${pid}) left running on ${dataDir} by an earlier run.`);
  process.kill(pid, 'SIGINT');
  if (!(await waitForExit(pid, shutdownTimeoutMs))) {
    throw new EmbeddedPostgresStartError(
      dataDir,
      `An orphaned server from an earlier run (pid ${pid}) did not shut down within ${shutdownTimeoutMs} ms.`,
    );
  }
}

async function readPostmasterPid(pidFile: string): Promise<number | undefined> {
  const text = await readFile(pidFile, 'utf8').catch(() => undefined);
  const pid = Number.parseInt(text?.split('\n')[0] ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Whether a process with this pid exists, whoever owns it. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user, which still means alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads a process's argv; undefined where /proc is not available (non-Linux) or it is gone. */
async function readCmdline(pid: number): Promise<string[] | undefined> {
  const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  return raw?.split('\0').filter(Boolean);
}

async function isPostmasterFor(pid: number, dataDir: string): Promise<boolean> {
  const argv = await readCmdline(pid);
  // Without /proc we cannot tell; assume it is the server, which errs towards not deleting its lock.
  if (argv === undefined) return true;
  const dataDirIndex = argv.indexOf('-D');
  return dataDirIndex >= 0 && argv[dataDirIndex + 1] === dataDir;
}

async function hasLiveNodeParent(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return true; // no /proc: cannot prove it is orphaned, so do not kill it
  // Field 4 is the parent pid; the command name (field 2) may contain spaces, so split after ')'.
  const parentPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  if (parentPid <= 1) return false;
  const parentArgv = await readCmdline(parentPid);
  return parentArgv !== undefined && /(^|\/)node(js)?$/.test(parentArgv[0] ?? '');
}

/** Polls until the process is gone; false if it still runs after `timeoutMs`. */
async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
