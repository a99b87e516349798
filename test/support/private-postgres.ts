import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from '../../libs/embedded-postgres/src/free-port';
import { giveTo, isRoot, osUser } from './os-user';
import { selfSignedCertificate } from './self-signed-certificate';

const run = promisify(execFile);

/** Where the server binaries are: Debian's PostgreSQL 15 (initdb, pg_ctl, pg_basebackup). */
const BIN_DIRS = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'];

/** Every cluster still running in this process, stopped at exit whatever happened to the test. */
const live = new Set<PrivatePostgres>();
process.once('exit', () => {
  for (const cluster of live) cluster.destroySync();
});

/** Why private clusters cannot be made on this machine, or null when they can. */
export function privatePostgresUnavailable(): string | null {
  if (!binDir()) return `no PostgreSQL server binaries in ${BIN_DIRS.join(', ')} (Debian: apt-get install postgresql)`;
  if (isRoot() && !osUser('postgres')) return 'running as root, and there is no "postgres" OS user to run the server as';
  return null;
}

export interface PrivatePostgresOptions {
  /** Addresses the server listens on besides its socket (default 127.0.0.1). */
  listen?: string;
  /** Extra lines for postgresql.conf. */
  settings?: Record<string, string | number>;
  /** Lines appended to pg_hba.conf (trust for everyone on every address is already there). */
  hba?: string[];
  /**
   * Serve TLS only, as a managed database does: `ssl = on` with a self-signed certificate for `localhost` (its file
   * is {@link PrivatePostgres.certificateFile}), and a pg_hba.conf that trusts TLS connections and refuses plain ones.
   */
  tlsOnly?: boolean;
}

/**
 * A PostgreSQL cluster of a test's own: initdb in a temporary folder, on a free port, that the test may restart,
 * stop, kill, replicate or promote — never the machine's shared server. As root the server runs as the
 * `postgres` OS user (PostgreSQL refuses root). `destroy()` stops it and removes the folder; clusters still
 * running when the process exits are stopped then.
 */
export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly listen: string,
  ) {}

  /** The server's self-signed certificate (PEM), a client's CA for it; made when the cluster is `tlsOnly`. */
  get certificateFile(): string {
    return join(this.dir, 'server.crt');
  }

  /** The data directory. */
  get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** A URL to database `postgres` as user `postgres` on `host` (default: the first address it listens on). */
  url(host = this.listen.split(',')[0].trim(), database = 'postgres'): string {
    return `postgres://postgres@${host}:${this.port}/${database}`;
  }

  /** Creates and starts a new cluster. */
  static async create(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'conveyor-pg-'));
    chmodSync(dir, 0o755);
    giveTo('postgres', dir);
    const cluster = new PrivatePostgres(dir, await findFreePort(), options.listen ?? '127.0.0.1');
    live.add(cluster);
    await cluster.pg('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
    cluster.configure(options);
    await cluster.start();
    return cluster;
  }

  /**
   * A streaming replica of this cluster (pg_basebackup), started on a port of its own; `name` is its
   * application_name, which `synchronous_standby_names` may list on the primary. The base backup copies the
   * primary's postgresql.auto.conf, settings included; `synchronous_standby_names` is reset on the replica (unless
   * `options.settings` gives one), or, once promoted, every commit on it would wait for a standby it does not have.
   * `streamFrom` is where it streams from once started (default: this cluster): a proxy in front of this cluster,
   * say, that a test can cut to hold the replica back. The base backup itself is taken straight from this cluster.
   */
  async replica(name: string, options: PrivatePostgresOptions = {}, streamFrom?: { host: string; port: number }): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'conveyor-pg-replica-'));
    chmodSync(dir, 0o755);
    giveTo('postgres', dir);
    const replica = new PrivatePostgres(dir, await findFreePort(), options.listen ?? '127.0.0.1');
    live.add(replica);
    const host = this.listen.split(',')[0].trim();
    const upstream = streamFrom ?? { host, port: this.port };
    await replica.pg('pg_basebackup', ['-h', host, '-p', String(this.port), '-U', 'postgres', '-D', replica.dataDir, '-X', 'stream', '-R']);
    replica.configure({
      ...options,
      settings: {
        synchronous_standby_names: "''",
        ...options.settings,
        primary_conninfo: `'host=${upstream.host} port=${upstream.port} user=postgres application_name=${name}'`,
      },
    });
    await replica.start();
    return replica;
  }

  async start(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-l', join(this.dir, 'server.log'), '-w', '-t', '60', 'start']);
  }

  /** `pg_ctl restart -m <mode>`: fast ends every session (57P01), immediate is a crash. */
  async restart(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-l', join(this.dir, 'server.log'), '-w', '-t', '60', '-m', mode, 'restart']);
  }

  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-w', '-t', '60', '-m', mode, 'stop']);
  }

  /** Promotes a replica to a primary. */
  async promote(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.dataDir, '-w', '-t', '60', 'promote']);
  }

  /** Stops the server (immediately) and removes its folder. */
  async destroy(): Promise<void> {
    live.delete(this);
    await this.pg('pg_ctl', ['-D', this.dataDir, '-w', '-t', '30', '-m', 'immediate', 'stop']).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The same, synchronously (at process exit). */
  destroySync(): void {
    live.delete(this);
    try {
      execFileSync(...asPostgres(join(binDir()!, 'pg_ctl'), ['-D', this.dataDir, '-m', 'immediate', 'stop']), { stdio: 'ignore' });
    } catch {
      // not running
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The server log so far (for a failing test's message). */
  log(): string {
    try {
      return execFileSync('tail', ['-n', '40', join(this.dir, 'server.log')]).toString();
    } catch {
      return '';
    }
  }

  private configure(options: PrivatePostgresOptions): void {
    const settings: Record<string, string | number> = {
      port: this.port,
      listen_addresses: `'${this.listen}'`,
      unix_socket_directories: `'${this.dir}'`,
      max_connections: 200,
      fsync: 'off',
      full_page_writes: 'off',
      wal_level: 'replica',
      max_wal_senders: 5,
      ...options.settings,
    };
    const conf = Object.entries(settings)
      .map(([k, v]) => `${k} = ${v}`)
      .join('\n');
    writeFileSync(join(this.dataDir, 'postgresql.auto.conf'), `${conf}\n`, { flag: 'a' });
    if (options.tlsOnly) {
      const { certFile, keyFile } = selfSignedCertificate(this.dir);
      const tls = `ssl = on\nssl_cert_file = '${certFile}'\nssl_key_file = '${keyFile}'\n`;
      writeFileSync(join(this.dataDir, 'postgresql.auto.conf'), tls, { flag: 'a' });
      giveTo('postgres', this.dir);
      // The first line that matches decides; initdb's own lines would trust plain connections from 127.0.0.1.
      const hba = [
        'local all all trust',
        'hostnossl all all 0.0.0.0/0 reject',
        'hostssl all all 0.0.0.0/0 trust',
        'hostssl replication all 0.0.0.0/0 trust',
        ...(options.hba ?? []),
      ];
      writeFileSync(join(this.dataDir, 'pg_hba.conf'), `${hba.join('\n')}\n`);
    } else {
      const hba = ['host all all 0.0.0.0/0 trust', 'host replication all 0.0.0.0/0 trust', ...(options.hba ?? [])];
      writeFileSync(join(this.dataDir, 'pg_hba.conf'), `\n${hba.join('\n')}\n`, { flag: 'a' });
    }
    giveTo('postgres', this.dataDir);
  }

  private async pg(tool: string, args: string[]): Promise<void> {
    try {
      await run(...asPostgres(join(binDir()!, tool), args), { cwd: this.dir });
    } catch (err) {
      const e = err as Error & { stderr?: string; stdout?: string };
      throw new Error(`${tool} ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}\n${this.log()}`);
    }
  }
}

function binDir(): string | undefined {
  return BIN_DIRS.find((dir) => existsSync(join(dir, 'pg_ctl')));
}

/** The command line that runs `file` as the postgres OS user when this process is root, as itself otherwise. */
function asPostgres(file: string, args: string[]): [string, string[]] {
  if (!isRoot()) return [file, args];
  return ['runuser', ['-u', 'postgres', '--', file, ...args]];
}
