import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { clearStalePostmaster, isAlive } from './clear-stale-postmaster';
import { EMBEDDED_POSTGRES_DEFAULTS as DEFAULTS } from './embedded-postgres.defaults';
import type { EmbeddedPostgresHandle } from './embedded-postgres-handle.interface';
import type { EmbeddedPostgresOptions } from './embedded-postgres-options.interface';
import { EmbeddedPostgresStartError } from './embedded-postgres-start.error';
import { ensureDatabase } from './ensure-database';
import { ensureTraversable } from './ensure-traversable';
import { findFreePort, isPortFree } from './free-port';
import { loadEmbeddedPostgres } from './load-embedded-postgres';
import { OutputTail } from './output-tail';
import { withDetachedSpawns } from './spawn-detached';

/**
 * Starts a PostgreSQL server from the `embedded-postgres` package's binaries and returns a URL to
 * its `conveyor` database (created when missing).
 *
 * - An initialised data directory (one with `PG_VERSION`) is reused, never re-initialised. A new one
 *   is made by initdb beside it and renamed into place once complete, so a first start that is
 *   interrupted leaves no half-made directory that later starts would take for a server's.
 * - A server left behind by a killed earlier run is dealt with first (see `clearStalePostmaster`).
 * - As root, the server runs as the `postgres` OS user (created if missing, as PostgreSQL refuses
 *   to run as root), and the directories it must reach are made enterable for that user.
 * - The server listens on 127.0.0.1 only, with password authentication.
 * - The server runs in a session of its own, so a Ctrl-C in the terminal reaches only the host,
 *   which stops the server once it has shut down (see `withDetachedSpawns`).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const dataDir = resolve(options.dataDir);
  const persistent = options.persistent ?? true;
  const log = options.log ?? (() => undefined);
  const isRoot = process.getuid?.() === 0;
  const EmbeddedPostgres = await loadEmbeddedPostgres();

  await mkdir(dirname(dataDir), { recursive: true });
  const initialised = existsSync(join(dataDir, 'PG_VERSION'));
  if (isRoot) await makeReachableForPostgresUser(dataDir, !initialised, log);
  if (initialised) await clearStalePostmaster(dataDir, log, DEFAULTS.orphanShutdownTimeoutMs);
  else if ((await readdir(dataDir).catch(() => [])).length > 0) {
    throw new EmbeddedPostgresStartError(
      dataDir,
      'The directory is not empty and holds no PostgreSQL data directory (no PG_VERSION): point CONVEYOR_DATA_DIR at a new or empty directory.',
    );
  }
  const port = await choosePort(options, log);

  const output = new OutputTail();
  const serverOn = (databaseDir: string) =>
    new EmbeddedPostgres({
      databaseDir,
      port,
      user: DEFAULTS.user,
      password: DEFAULTS.password,
      authMethod: 'scram-sha-256',
      persistent,
      createPostgresUser: isRoot,
      initdbFlags: [...DEFAULTS.initdbFlags, ...(persistent ? [] : DEFAULTS.throwawayInitdbFlags)],
      postgresFlags: [...DEFAULTS.postgresFlags, ...(persistent ? [] : DEFAULTS.throwawayPostgresFlags)],
      onLog: (message) => {
        output.push(message);
        if (message.includes('PANIC')) log(`PostgreSQL: ${message.trim()}`);
      },
      onError: (error) => output.push(String(error)),
    });
  const server = serverOn(dataDir);

  try {
    if (!initialised) {
      log(`Initialising a new PostgreSQL data directory in ${dataDir}`);
      await initialiseBeside(dataDir, (staging) => serverOn(staging).initialise());
    }
    await withDetachedSpawns('postgres', () => server.start());
  } catch (error) {
    if (!persistent) await rm(dataDir, { recursive: true, force: true });
    throw new EmbeddedPostgresStartError(dataDir, `Last server output:\n${output}`, { cause: error });
  }

  const stop = stopOnce(server, dataDir, persistent, output, log);
  const url = `postgres://${DEFAULTS.user}:${encodeURIComponent(DEFAULTS.password)}@${DEFAULTS.host}:${port}`;
  try {
    await ensureDatabase({ connectionString: `${url}/postgres` }, DEFAULTS.database);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `${url}/${DEFAULTS.database}`, port, stop };
}

/**
 * Runs initdb into `<dataDir>.initdb-<pid>` and renames the result to `dataDir`. Staging
 * directories left by processes that died while initialising are removed first; a live
 * process's is left alone, as it may be initialising the same directory right now.
 */
async function initialiseBeside(dataDir: string, initialise: (staging: string) => Promise<void>): Promise<void> {
  const prefix = `${basename(dataDir)}.initdb-`;
  for (const entry of await readdir(dirname(dataDir))) {
    const pid = Number(entry.slice(prefix.length));
    if (entry.startsWith(prefix) && Number.isInteger(pid) && !isAlive(pid)) {
      await rm(join(dirname(dataDir), entry), { recursive: true, force: true });
    }
  }
  const staging = `${dataDir}.initdb-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  try {
    await initialise(staging);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    // Another process initialised the directory meanwhile: use its, as a later start would.
    if (existsSync(join(dataDir, 'PG_VERSION'))) return;
    throw error;
  }
  try {
    // rename(2) replaces an empty directory: one made by hand, or by a mkdir of our own.
    await rename(staging, dataDir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (existsSync(join(dataDir, 'PG_VERSION'))) return;
    // An empty directory that cannot be replaced, a mount point above all (a volume mounted at the data directory)
    // or any directory on Windows, is initialised in place: a start killed meanwhile leaves it half-made.
    if (!existsSync(dataDir) || (await readdir(dataDir)).length > 0) throw error;
    await initialise(dataDir);
  }
}

async function choosePort(options: EmbeddedPostgresOptions, log: (message: string) => void): Promise<number> {
  if (options.port === undefined) return findFreePort();
  if (!options.fallbackToFreePort || (await isPortFree(options.port))) return options.port;
  const port = await findFreePort();
  log(`Port ${options.port} is taken; the embedded PostgreSQL listens on ${port} instead`);
  return port;
}

/** Signals whose default action ends the process, as a terminal or a process manager sends them. */
const FATAL_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * The last resorts of the handles open in this process. One listener per signal serves them all:
 * with one per handle, two open handles would each see the other's listener, take it for the host's
 * and leave the signal unhandled, so the host would no longer end on it.
 */
const openServers = new Set<() => void>();

/**
 * The servers are detached, so a signal that ends this process by default (no other listener: Ctrl-C
 * before the host installs its shutdown handling) would leave them running: stop them, then die of it.
 */
function onFatalSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  for (const lastResort of openServers) lastResort();
  openServers.clear();
  for (const fatal of FATAL_SIGNALS) process.removeListener(fatal, onFatalSignal);
  process.kill(process.pid, signal);
}

/** `stop()` of the package's class, as far as this module uses it. */
interface StoppableServer {
  stop(): Promise<void>;
}

/**
 * Builds the idempotent `stop()` of the handle, reports an unexpected exit of the server, and
 * sends the server its fast-shutdown signal if this process exits, or is ended by a signal nothing
 * else handles, without calling `stop()`.
 *
 * The package's own `stop()` waits for an 'exit' event that never comes when the server has
 * already died, so we watch its child process (a private field in this pinned version) and skip
 * the package's stop in that case.
 */
function stopOnce(
  server: StoppableServer,
  dataDir: string,
  persistent: boolean,
  output: OutputTail,
  log: (message: string) => void,
): () => Promise<void> {
  const child = (server as unknown as { process?: ChildProcess }).process;
  let stopping: Promise<void> | undefined;
  let exited = false;
  // Only synchronous work is possible while the process exits: signal, do not wait.
  const lastResort = () => {
    if (!exited) child?.kill('SIGINT');
  };
  process.once('exit', lastResort);
  openServers.add(lastResort);
  if (openServers.size === 1) for (const signal of FATAL_SIGNALS) process.on(signal, onFatalSignal);
  const removeSignalListeners = () => {
    openServers.delete(lastResort);
    if (openServers.size === 0) for (const signal of FATAL_SIGNALS) process.removeListener(signal, onFatalSignal);
  };
  child?.once('exit', (code, signal) => {
    exited = true;
    if (!stopping) log(`Embedded PostgreSQL exited unexpectedly (code ${code}, signal ${signal}).\n${output}`);
  });
  return () => {
    stopping ??= (async () => {
      process.removeListener('exit', lastResort);
      removeSignalListeners();
      if (!exited) await server.stop();
      if (!persistent) await rm(dataDir, { recursive: true, force: true });
    })();
    return stopping;
  };
}

/**
 * Makes sure the `postgres` OS user can reach the data directory, the binaries and (for initdb's
 * password file) the temp directory.
 */
async function makeReachableForPostgresUser(dataDir: string, initialising: boolean, log: (message: string) => void) {
  const dirs = [dirname(dataDir), dirname(resolvePackage())];
  if (initialising) dirs.push(tmpdir());
  for (const dir of dirs) {
    for (const changed of await ensureTraversable(dir)) {
      log(`Made ${changed} enterable (o+x) for the postgres OS user that runs the embedded server`);
    }
  }
}

/** The platform package holding the binaries, or the main package when that one is named differently. */
function resolvePackage(): string {
  try {
    return require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  } catch {
    return require.resolve('embedded-postgres');
  }
}
