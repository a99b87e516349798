import { Client } from 'pg';
import { PgCpuConfig } from '../shared/bench-case';
import { childPids, readProcCpu } from './proc-stat';

const SAMPLE_EVERY_MS = 250;

/**
 * CPU time PostgreSQL spends on a case, read from /proc (so only for a server on this machine).
 *
 * - `server` (the embedded server, which only the benchmark uses): the postmaster's own CPU, plus
 *   its reaped children (cutime+cstime: every backend that exited, since the postmaster waits for
 *   them), plus every live child (backends, autovacuum, WAL writer, checkpointer). Nothing is missed
 *   and nothing outside the server counts.
 * - `backends` (a DATABASE_URL server that other sessions may share): the backends whose
 *   application_name starts with the case's prefix, listed from pg_stat_activity and sampled every
 *   250 ms, so a connection that closes mid-case loses at most its last 250 ms. Server-wide work
 *   caused by the case (WAL writer, autovacuum) is not counted: a slight undercount.
 * - `none`: no numbers (the server is on another machine).
 */
export class PostgresCpuMeter {
  private base = new Map<number, number>();
  private last = new Map<number, number>();
  private serverBase = 0;
  private timer: NodeJS.Timeout | null = null;
  private client: Client | null = null;
  private sampling: Promise<void> | null = null;

  constructor(
    private readonly config: PgCpuConfig,
    private readonly url: string,
  ) {}

  async start(): Promise<void> {
    if (this.config.mode === 'server') {
      this.serverBase = serverCpuMs(this.config.postmasterPid);
      return;
    }
    if (this.config.mode !== 'backends') return;
    this.client = new Client({ connectionString: this.url, application_name: 'bench-cpu-meter' });
    await this.client.connect();
    this.base.clear();
    this.last.clear();
    await this.sample(true);
    this.timer = setInterval(() => void (this.sampling ??= this.sample(false).finally(() => (this.sampling = null))), SAMPLE_EVERY_MS);
  }

  /** CPU milliseconds since `start()`, or NaN when not measurable. */
  async stop(): Promise<number> {
    if (this.config.mode === 'server') return serverCpuMs(this.config.postmasterPid) - this.serverBase;
    if (this.config.mode !== 'backends') return NaN;
    if (this.timer) clearInterval(this.timer);
    await this.sampling;
    await this.sample(false);
    await this.client?.end();
    let total = 0;
    for (const [pid, ms] of this.last) total += ms - (this.base.get(pid) ?? 0);
    return total;
  }

  private async sample(baseline: boolean): Promise<void> {
    if (this.config.mode !== 'backends' || !this.client) return;
    const { rows } = await this.client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1 || '%'`,
      [this.config.applicationPrefix],
    );
    for (const { pid } of rows) {
      const cpu = readProcCpu(pid);
      if (!cpu) continue;
      // A backend first seen after the start began during the case: all of its CPU counts.
      if (baseline) this.base.set(pid, cpu.ownMs);
      else if (!this.base.has(pid)) this.base.set(pid, 0);
      this.last.set(pid, cpu.ownMs);
    }
  }
}

/** Everything the server has used so far: postmaster, reaped children, live children. */
function serverCpuMs(postmasterPid: number): number {
  const postmaster = readProcCpu(postmasterPid);
  if (!postmaster) return NaN;
  let total = postmaster.ownMs + postmaster.reapedChildrenMs;
  for (const pid of childPids(postmasterPid)) total += readProcCpu(pid)?.ownMs ?? 0;
  return total;
}
