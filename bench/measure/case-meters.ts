import { CaseSpec } from '../shared/bench-case';
import { NodeCpuMeter } from './node-cpu-meter';
import { PostgresCpuMeter } from './postgres-cpu-meter';

/** CPU used by this process and by PostgreSQL over one measured phase. */
export interface CpuUsed {
  nodeCpuMs: number;
  pgCpuMs: number;
}

/**
 * Starts and stops both CPU meters of a case whose worker runs in this process. PostgreSQL is read at
 * start and stop only: periodic sampling would run here and count as the worker's CPU, and the
 * connections of such a case stay open through the measured phase anyway (a pool connection that
 * idles out mid-phase had nothing to add).
 */
export class CaseMeters {
  private readonly node = new NodeCpuMeter();
  private readonly pg: PostgresCpuMeter;

  constructor(spec: CaseSpec) {
    this.pg = new PostgresCpuMeter(spec.pgCpu, spec.url, 0);
  }

  async start(): Promise<void> {
    await this.pg.start();
    this.node.start();
  }

  async stop(): Promise<CpuUsed> {
    const nodeCpuMs = this.node.stop();
    return { nodeCpuMs, pgCpuMs: await this.pg.stop() };
  }
}

/** CPU milliseconds per 1,000 jobs (or requests). */
export function per1k(cpuMs: number, count: number): number {
  return count > 0 ? (cpuMs * 1000) / count : NaN;
}
