import { Client } from 'pg';
import { PgCpuConfig } from '../shared/bench-case';
import { childPids, clockTicksPerSecond, readProcCpu } from './proc-stat';

const SAMPLE_EVERY_MS = 250;

/** application_name of the meter's own connection (the query counter skips it). */
export const CPU_METER_APPLICATION_NAME = 'bench-cpu-meter';

/**
 * CPU time PostgreSQL spends on a case, read from /proc (so only for a server on this machine).
 *
 * - `server` (the embedded server, which only the benchmark uses): the postmaster's own CPU, plus
 *   its reaped children (cutime+cstime: every backend that exited, since the postmaster waits for
 *   them), plus every live child (backends, autovacuum, WAL writer, checkpointer). Nothing is missed
 *   and nothing outside the server counts.
 * - `backends` (a DATABASE_URL server that other sessions may share): the backends whose
 *   application_name starts with the case's prefix, listed from pg_stat_activity and sampled every
 *   250 ms (or only at start and stop, see the constructor), so a connection that closes mid-case
 *   loses at most its last 250 ms. Server-wide work caused by the case (WAL writer, autovacuum) is
 *   not counted: a slight undercount.
 * - `none`: no numbers (the server is on another machine).
 */
export class PostgresCpuMeter {
  private base = new Map<number, number>();
  private last = new Map<number, number>();
  private serverBase = 0;
  private timer: NodeJS.Timeout | null = null;
  private client: Client | null = null;
  private sampling: Promise<void> | null = null;

  /**
   * @param sampleEveryMs `backends` mode only: 0 reads at start and stop alone, for a process whose own
   *   CPU is being measured too (the sampling — a query and /proc reads — would be counted as its work).
   */
  constructor(
    private readonly config: PgCpuConfig,
    private readonly url: string,
    private readonly sampleEveryMs = SAMPLE_EVERY_MS,
  ) {}

  async start(): Promise<void> {
    // Learned once per process by running `getconf`: now, not in the first /proc read, which for a queue whose
    // backends open only once its worker starts came mid-case and blocked the event loop for ~8 ms.
    clockTicksPerSecond();
    if (this.config.mode === 'server') {
      this.serverBase = serverCpuMs(this.config.postmasterPid);
      return;
    }
    if (this.config.mode !== 'backends') return;
    this.client = new Client({ connectionString: this.url, application_name: CPU_METER_APPLICATION_NAME });
    await this.client.connect();
    this.base.clear();
    this.last.clear();
    await this.sample(true);
    if (this.sampleEveryMs > 0) {
      this.timer = setInterval(() => void (this.sampling ??= this.sample(false).finally(() => (this.sampling = null))), this.sampleEveryMs);
    }
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
    const { rows } = await this.client.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1 || '%'`, [
      this.config.applicationPrefix,
    ]);
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

/**
 * Everything the server has used so far: postmaster, reaped children, live children. A backend that
 * exits and is reaped while the children are being read would be missed (no longer live, not yet in
 * the postmaster's counters as read), so the read is repeated until no reap happened during it.
 */
function serverCpuMs(postmasterPid: number): number {
  for (let attempt = 0; ; attempt++) {
    const before = readProcCpu(postmasterPid);
    if (!before) return NaN;
    let live = 0;
    for (const pid of childPids(postmasterPid)) live += readProcCpu(pid)?.ownMs ?? 0;
    const after = readProcCpu(postmasterPid);
    if (!after) return NaN;
    if (after.reapedChildrenMs === before.reapedChildrenMs || attempt >= 10) return after.ownMs + after.reapedChildrenMs + live;
  }
}
