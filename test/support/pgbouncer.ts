import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { findFreePort } from '../../libs/embedded-postgres/src/free-port';
import { waitFor } from './wait-for';
import { giveTo, isRoot, osUser } from './os-user';

/** Where Debian puts the binary (/usr/sbin is not on every user's PATH). */
const PGBOUNCER_PATHS = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];
/** OS user that runs pgbouncer when the tests run as root (it refuses to run as root). */
const RUN_AS = 'postgres';

/** Every pgbouncer still running in this process, stopped at exit whatever happened to the test. */
const live = new Set<PgBouncer>();
process.once('exit', () => {
  for (const bouncer of live) bouncer.kill();
});

/** Why a PgBouncer cannot be started on this machine (with what to install), or null when it can. */
export function pgbouncerUnavailable(): string | null {
  if (!binary()) return 'pgbouncer is not installed (scripts/ensure-pgbouncer.sh installs it: apt-get install pgbouncer)';
  if (isRoot() && !osUser(RUN_AS)) return `running as root, and there is no "${RUN_AS}" OS user to run pgbouncer as`;
  return null;
}

export interface PgBouncerOptions {
  /** Server connections per user and database (`default_pool_size`, default 10). */
  poolSize?: number;
  /** Further [pgbouncer] settings, written after the defaults (which they override). */
  settings?: Record<string, string | number>;
}

/**
 * A PgBouncer of a test's own in front of a database: in transaction mode (`pool_mode = transaction`, what
 * managed PostgreSQL offers), on a free port of 127.0.0.1, with its ini, user list and log in a temporary
 * folder. Clients are trusted; pgbouncer logs in to the server with the target URL's user and password.
 * `server_reset_query` is empty, as transaction mode leaves it anyway: a server connection goes from one client
 * to the next with whatever session state the first left on it. As root it runs as the `postgres` OS user.
 * `stop()` ends it and removes the folder; one still running when the process exits is killed then.
 */
export class PgBouncer {
  private exited: Promise<void>;

  private constructor(
    readonly dir: string,
    readonly port: number,
    /** The name clients connect to: the target's database name. */
    readonly database: string,
    private readonly user: string,
    private readonly proc: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
  }

  /** Starts a pgbouncer in front of the database at `targetUrl` and waits until a query goes through it. */
  static async start(targetUrl: string, options: PgBouncerOptions = {}): Promise<PgBouncer> {
    const target = new URL(targetUrl);
    const database = decodeURIComponent(target.pathname.slice(1)) || 'postgres';
    const user = decodeURIComponent(target.username) || 'postgres';
    const dir = mkdtempSync(join(tmpdir(), 'conveyor-pgbouncer-'));
    chmodSync(dir, 0o755);
    const port = await findFreePort();
    const server = [
      `host=${target.hostname || '127.0.0.1'}`,
      `port=${target.port || '5432'}`,
      `dbname=${database}`,
      `user=${user}`,
      ...(target.password ? [`password=${decodeURIComponent(target.password)}`] : []),
    ].join(' ');
    const settings: Record<string, string | number> = {
      listen_addr: '127.0.0.1',
      listen_port: port,
      unix_socket_dir: '',
      auth_type: 'trust',
      auth_file: join(dir, 'userlist.txt'),
      admin_users: user,
      pool_mode: 'transaction',
      default_pool_size: options.poolSize ?? 10,
      max_client_conn: 1000,
      server_reset_query: '',
      logfile: join(dir, 'pgbouncer.log'),
      ...options.settings,
    };
    const ini = [
      '[databases]',
      `${database} = ${server}`,
      '',
      '[pgbouncer]',
      ...Object.entries(settings).map(([k, v]) => `${k} = ${v}`),
      '',
    ].join('\n');
    writeFileSync(join(dir, 'pgbouncer.ini'), ini, { mode: 0o644 });
    writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`, { mode: 0o644 });
    // As root, pgbouncer runs as RUN_AS and writes its log into `dir`.
    giveTo(RUN_AS, dir);

    const args = isRoot() ? ['-u', RUN_AS, join(dir, 'pgbouncer.ini')] : [join(dir, 'pgbouncer.ini')];
    const proc = spawn(binary()!, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const bouncer = new PgBouncer(dir, port, database, user, proc);
    live.add(bouncer);
    try {
      await waitFor(
        async () => {
          if (proc.exitCode !== null || proc.signalCode !== null)
            throw new Error(`pgbouncer exited (${proc.exitCode ?? proc.signalCode}): ${stderr}`);
          const client = new Client({ connectionString: bouncer.url(), connectionTimeoutMillis: 1000 });
          try {
            await client.connect();
            await client.query('SELECT 1');
            return true;
          } catch {
            return false;
          } finally {
            await client.end().catch(() => undefined);
          }
        },
        { timeoutMs: 15_000, intervalMs: 50, message: 'pgbouncer to pass a query to the server' },
      );
    } catch (err) {
      const log = bouncer.log();
      await bouncer.stop();
      throw new Error(`${(err as Error).message}\n${stderr}\n${log}`);
    }
    return bouncer;
  }

  /**
   * Stops pgbouncer in its tracks (SIGSTOP), as a pooler that hangs: the kernel still accepts connections on its
   * port, and nothing answers them or the statements of its clients until `thaw()`.
   */
  freeze(): void {
    this.proc.kill('SIGSTOP');
  }

  /** Lets a frozen pgbouncer carry on (SIGCONT). */
  thaw(): void {
    this.proc.kill('SIGCONT');
  }

  /** A URL to the database through this pgbouncer. */
  url(): string {
    return `postgres://${encodeURIComponent(this.user)}@127.0.0.1:${this.port}/${encodeURIComponent(this.database)}`;
  }

  /** A URL to pgbouncer's admin console (`SHOW SERVERS`, `SHOW POOLS`; simple queries only). */
  adminUrl(): string {
    return `postgres://${encodeURIComponent(this.user)}@127.0.0.1:${this.port}/pgbouncer`;
  }

  /** Runs an admin console command (e.g. `SHOW SERVERS`) and returns its rows. */
  async admin<R = Record<string, unknown>>(command: string): Promise<R[]> {
    const client = new Client({ connectionString: this.adminUrl() });
    await client.connect();
    try {
      // The console speaks the simple protocol only: no parameters, so pg sends a plain Query message.
      const res = await client.query(command);
      return res.rows as R[];
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Stops pgbouncer (immediate shutdown: its clients are disconnected) and removes its folder. */
  async stop(): Promise<void> {
    live.delete(this);
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      this.thaw();
      this.proc.kill('SIGTERM');
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
      await this.exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Kills it and removes its folder, synchronously (at process exit). */
  kill(): void {
    live.delete(this);
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The end of pgbouncer's log (for a failing test's message). */
  log(): string {
    try {
      return readFileSync(join(this.dir, 'pgbouncer.log'), 'utf8').split('\n').slice(-40).join('\n');
    } catch {
      return '';
    }
  }
}

function binary(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    if (existsSync(join(dir, 'pgbouncer'))) return join(dir, 'pgbouncer');
  }
  return PGBOUNCER_PATHS.find((path) => existsSync(path));
}
