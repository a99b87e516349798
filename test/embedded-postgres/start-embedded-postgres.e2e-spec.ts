import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/wait-for';

/**
 * startEmbeddedPostgres runs in child processes here: its ESM import() cannot run inside Jest's
 * sandbox, and the crash cases need a process that can be killed anyway.
 */
const FIXTURE = join(__dirname, 'embedded-postgres-child.fixture.ts');
const REGISTER = join(__dirname, '..', 'support', 'register-ts.js');

interface ChildRun {
  child: ChildProcess;
  events: Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** `ownGroup`: the child leads a process group of its own, as a command run in a terminal does. */
function runChild(dataDir: string, mode: 'once' | 'hold' | 'idle' | 'idle-two', ownGroup = false): ChildRun {
  const child = spawn(process.execPath, ['-r', REGISTER, FIXTURE, dataDir, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: ownGroup,
  });
  const events: ChildRun['events'] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (buffered + chunk.toString()).split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('{')) events.push(JSON.parse(line));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, events, exited };
}

const find = (run: ChildRun, key: string) => run.events.find((event) => key in event);
const logs = (run: ChildRun) => run.events.filter((event) => 'log' in event).map((event) => String(event.log));

/** pid of the server that holds the data directory, from its lock file. */
const postmasterPid = (dataDir: string) => Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startEmbeddedPostgres', () => {
  let root: string;
  let dataDir: string;
  const running: ChildRun[] = [];

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'conveyor-embedded-spec-'));
    await chmod(root, 0o755);
    dataDir = join(root, 'pgdata');
  });

  afterEach(async () => {
    for (const run of running.splice(0)) {
      run.child.kill('SIGTERM');
      await run.exited;
    }
    // Whatever a killed child left behind must not outlive the test.
    for (const dir of [dataDir, `${dataDir}-second`]) {
      if (!existsSync(join(dir, 'postmaster.pid'))) continue;
      const pid = postmasterPid(dir);
      if (isAlive(pid)) process.kill(pid, 'SIGQUIT');
      await waitFor(() => !isAlive(pid), { message: `server ${pid} to exit` });
    }
    await rm(root, { recursive: true, force: true });
  });

  it('initialises a new data directory once and keeps its data across restarts', async () => {
    const first = runChild(dataDir, 'once');
    expect(await first.exited).toBe(0);
    expect(find(first, 'ready')).toMatchObject({ markers: 1, url: expect.stringMatching(/\/conveyor$/) });
    expect(logs(first).some((line) => line.startsWith('Initialising'))).toBe(true);

    const second = runChild(dataDir, 'once');
    expect(await second.exited).toBe(0);
    expect(find(second, 'ready')).toMatchObject({ markers: 2 });
    expect(logs(second).some((line) => line.startsWith('Initialising'))).toBe(false);
  });

  it('takes over a data directory whose owner was killed, stopping the orphaned server', async () => {
    const crashed = runChild(dataDir, 'hold');
    running.push(crashed);
    await waitFor(() => find(crashed, 'ready') ?? find(crashed, 'error'), { message: 'the first server' });
    const orphan = postmasterPid(dataDir);

    crashed.child.kill('SIGKILL');
    await crashed.exited;
    expect(isAlive(orphan)).toBe(true);

    const next = runChild(dataDir, 'once');
    expect(await next.exited).toBe(0);
    expect(logs(next).some((line) => line.includes(`orphaned PostgreSQL server (pid ${orphan})`))).toBe(true);
    expect(find(next, 'ready')).toMatchObject({ markers: 2 });
    expect(isAlive(orphan)).toBe(false);
  });

  it('keeps the server up through a Ctrl-C to its host until the host stops it', async () => {
    const host = runChild(dataDir, 'hold', true);
    running.push(host);
    await waitFor(() => find(host, 'ready') ?? find(host, 'error'), { message: 'the server' });
    const server = postmasterPid(dataDir);

    // What a terminal does on Ctrl-C: SIGINT to every process of the foreground group.
    process.kill(-host.child.pid!, 'SIGINT');
    const code = await host.exited;
    expect(find(host, 'afterInterrupt')).toEqual({ afterInterrupt: 'ok' });
    expect(code).toBe(0);
    expect(isAlive(server)).toBe(false);
  });

  it('stops the server when a Ctrl-C ends a host that does not handle it', async () => {
    const host = runChild(dataDir, 'idle', true);
    running.push(host);
    await waitFor(() => find(host, 'ready') ?? find(host, 'error'), { message: 'the server' });
    const server = postmasterPid(dataDir);

    process.kill(-host.child.pid!, 'SIGINT');
    await host.exited;
    expect(host.child.signalCode).toBe('SIGINT');
    await waitFor(() => !isAlive(server), { message: `server ${server} to exit` });
  });

  it('stops every server it has open when a Ctrl-C ends a host that does not handle it', async () => {
    const host = runChild(dataDir, 'idle-two', true);
    running.push(host);
    await waitFor(() => find(host, 'ready') ?? find(host, 'error'), { message: 'the servers' });
    const servers = [postmasterPid(dataDir), postmasterPid(`${dataDir}-second`)];

    process.kill(-host.child.pid!, 'SIGINT');
    await host.exited;
    expect(host.child.signalCode).toBe('SIGINT');
    await waitFor(() => servers.every((pid) => !isAlive(pid)), { message: `servers ${servers} to exit` });
  });

  it('starts on a directory whose first initialisation was killed half-way', async () => {
    const killed = runChild(dataDir, 'once', true);
    // initdb writes PG_VERSION first and the rest after: kill it (and its host) in between.
    await waitFor(() => readdirSync(root, { recursive: true }).some((path) => String(path).endsWith('PG_VERSION')), {
      message: 'initdb to have begun',
    });
    process.kill(-killed.child.pid!, 'SIGKILL');
    await killed.exited;

    const next = runChild(dataDir, 'once');
    expect(await next.exited).toBe(0);
    expect(find(next, 'ready')).toMatchObject({ markers: 1 });
    expect(readdirSync(root)).toEqual(['pgdata']);
  });

  // A volume mounted at the data directory is a mount point, which rename(2) cannot replace (EBUSY). Bind-mounting
  // the directory onto itself makes one; that needs root, which CI has.
  const asRoot = process.getuid?.() === 0 ? it : it.skip;
  asRoot('initialises a mount point in place, as a volume mounted at the data directory is', async () => {
    await mkdir(dataDir);
    execFileSync('mount', ['--bind', dataDir, dataDir]);
    try {
      const run = runChild(dataDir, 'once');
      expect(await run.exited).toBe(0);
      expect(find(run, 'ready')).toMatchObject({ markers: 1 });
      expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
      expect(readdirSync(root)).toEqual(['pgdata']);
    } finally {
      execFileSync('umount', [dataDir]);
    }
  });

  it('refuses a non-empty directory that holds no data directory, and leaves it as it was', async () => {
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'notes.txt'), 'mine');

    const run = runChild(dataDir, 'once');
    expect(await run.exited).toBe(1);
    expect(find(run, 'error')).toMatchObject({ message: expect.stringContaining('point CONVEYOR_DATA_DIR at a new or empty directory') });
    expect(readdirSync(dataDir)).toEqual(['notes.txt']);
  });

  it('refuses a data directory that a live process is using', async () => {
    const owner = runChild(dataDir, 'hold');
    running.push(owner);
    await waitFor(() => find(owner, 'ready') ?? find(owner, 'error'), { message: 'the first server' });

    const intruder = runChild(dataDir, 'once');
    expect(await intruder.exited).toBe(1);
    expect(find(intruder, 'error')).toMatchObject({ error: 'DataDirectoryInUseError' });
  });
});
