import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** CPU counters of one process from /proc/<pid>/stat, in milliseconds. */
export interface ProcCpu {
  pid: number;
  ppid: number;
  comm: string;
  /**
   * CPU of the process itself: from /proc/<pid>/schedstat (nanoseconds, main thread — PostgreSQL
   * processes have one) where the kernel provides it, else utime + stime (clock ticks, 10 ms).
   */
  ownMs: number;
  /** cutime + cstime: children it has waited for (for the postmaster: every backend that has exited). */
  reapedChildrenMs: number;
}

let ticksPerSecond: number | undefined;

/** Clock ticks per second of the /proc counters (`getconf CLK_TCK`, 100 on Linux in practice). */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Reads /proc/<pid>/stat; undefined when the process is gone (or there is no /proc). */
export function readProcCpu(pid: number): ProcCpu | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2 (comm) is in parentheses and may contain spaces: split after the last ')'.
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const f = text.slice(close + 2).split(' ');
  // f[0] is field 3 (state); utime..cstime are fields 14..17.
  const tick = 1000 / clockTicksPerSecond();
  return {
    pid,
    ppid: Number(f[1]),
    comm,
    ownMs: readSchedstatMs(pid) ?? (Number(f[11]) + Number(f[12])) * tick,
    reapedChildrenMs: (Number(f[13]) + Number(f[14])) * tick,
  };
}

/** First field of /proc/<pid>/schedstat: time spent on a CPU, in ns. */
function readSchedstatMs(pid: number): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/** Pids of the live children of `parent`, found by scanning /proc. */
export function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcCpu(Number(entry));
    if (stat?.ppid === parent) pids.push(stat.pid);
  }
  return pids;
}
