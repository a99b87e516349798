import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '@conveyor/embedded-postgres';
import { PgCpuConfig } from '../shared/bench-case';
import { readProcCpu } from '../measure/proc-stat';
import { withClient } from './with-client';

/** The PostgreSQL server a run benchmarks. */
export interface BenchDatabase {
  url: string;
  /** One line for the report: which server, and how it was started. */
  description: string;
  serverVersion: string;
  /** Settings that matter for the numbers (fsync, synchronous_commit, shared_buffers…). */
  settings: Record<string, string>;
  pgCpu: PgCpuConfig;
  /** A new empty schema named after `label`. */
  createSchema(label: string): Promise<string>;
  dropSchema(schema: string): Promise<void>;
  stop(): Promise<void>;
}

const REPORTED_SETTINGS = ['fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_connections', 'jit'];

/**
 * The server the tests use: an embedded PostgreSQL in a throwaway directory by default (as
 * test/support/start-embedded-database.ts starts it: fsync and synchronous_commit off), or
 * DATABASE_URL when set. `appPrefix` is the application_name prefix of every benchmark connection,
 * which the `backends` CPU mode looks for.
 */
export async function openBenchDatabase(databaseUrl: string | undefined, appPrefix: string): Promise<BenchDatabase> {
  if (databaseUrl) {
    const pgCpu = await cpuConfigForExternal(databaseUrl, appPrefix);
    return describe(databaseUrl, `DATABASE_URL (${redact(databaseUrl)})`, pgCpu, async () => undefined);
  }
  const root = await mkdtemp(join(tmpdir(), 'conveyor-bench-pg-'));
  // mkdtemp makes it 0700; run as root the server is the postgres OS user and must enter it.
  await chmod(root, 0o755);
  const dataDir = join(root, 'pgdata');
  try {
    const server = await startEmbeddedPostgres({ dataDir, persistent: false });
    const postmasterPid = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const stop = async () => {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    };
    return describe(
      server.url,
      `embedded PostgreSQL (port ${server.port}, throwaway data directory)`,
      { mode: 'server', postmasterPid },
      stop,
    );
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

async function describe(url: string, description: string, pgCpu: PgCpuConfig, stop: () => Promise<void>): Promise<BenchDatabase> {
  const settings = await withClient(url, async (c) => {
    const { rows } = await c.query<{ name: string; setting: string; unit: string | null }>(
      'SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)',
      [[...REPORTED_SETTINGS, 'server_version']],
    );
    return Object.fromEntries(rows.map((r) => [r.name, formatSetting(r.setting, r.unit)]));
  });
  const { server_version: serverVersion, ...rest } = settings;
  return {
    url,
    description,
    serverVersion,
    settings: rest,
    pgCpu,
    createSchema: async (label) => {
      // Lower-case letters, digits and underscores only, so the name needs no quoting anywhere.
      const schema = `bench_${label.replace(/[^a-z0-9]+/g, '_')}_${randomBytes(3).toString('hex')}`.slice(0, 63);
      await withClient(url, (c) => c.query(`CREATE SCHEMA ${schema}`));
      return schema;
    },
    dropSchema: async (schema) => {
      await withClient(url, async (c) => {
        // With the case's warm-up schemas, left behind when a case process was killed during its warm-up.
        const { rows } = await c.query<{ name: string }>(
          `SELECT nspname AS name FROM pg_namespace WHERE nspname = $1 OR starts_with(nspname, $1 || '_warm')`,
          [schema],
        );
        for (const { name } of rows) await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      });
    },
    stop,
  };
}

/**
 * For a DATABASE_URL server: `BENCH_PG_CPU` decides; by default the tagged backends are measured when
 * the server runs on this machine (its backend's /proc entry is readable), and nothing otherwise.
 * `server` measures the whole server as for the embedded one — only right when nothing else uses it.
 */
async function cpuConfigForExternal(url: string, appPrefix: string): Promise<PgCpuConfig> {
  const wanted = process.env.BENCH_PG_CPU;
  if (wanted === 'none') return { mode: 'none', reason: 'BENCH_PG_CPU=none' };
  // Read /proc while the connection is open: its backend exits with it.
  const backend = await withClient(url, async (c) =>
    readProcCpu((await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid),
  );
  if (!backend || !backend.comm.startsWith('postgres')) {
    return { mode: 'none', reason: 'the server is not on this machine (its backend pid is not in /proc)' };
  }
  if (wanted === 'server') return { mode: 'server', postmasterPid: backend.ppid };
  return { mode: 'backends', applicationPrefix: appPrefix };
}

function formatSetting(setting: string, unit: string | null): string {
  if (unit === '8kB') return `${(Number(setting) * 8) / 1024} MB`;
  return unit ? `${setting} ${unit}` : setting;
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}
