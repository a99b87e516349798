import { availableParallelism, cpus, loadavg, release, totalmem, type } from 'node:os';
import { BenchDatabase } from '../database/bench-database';

/** What the numbers were measured on. */
export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  node: string;
  postgres: string;
  postgresSettings: Record<string, string>;
  database: string;
  pgCpuMethod: string;
  /** 1-minute load average when the run started: other work on the machine skews the numbers. */
  loadAtStart: number;
}

export function describeMachine(db: BenchDatabase): MachineInfo {
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${type()} ${release()}`,
    node: process.version,
    postgres: db.serverVersion,
    postgresSettings: db.settings,
    database: db.description,
    pgCpuMethod:
      db.pgCpu.mode === 'server'
        ? `whole server: postmaster (pid ${db.pgCpu.postmasterPid}) + its reaped and live children, from /proc`
        : db.pgCpu.mode === 'backends'
          ? `the benchmark's own backends (application_name "${db.pgCpu.applicationPrefix}…"), read from /proc`
          : `not measured: ${db.pgCpu.reason}`,
    loadAtStart: loadavg()[0],
  };
}
