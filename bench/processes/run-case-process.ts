import { CaseResult, CaseSpec } from '../shared/bench-case';
import { BenchChild } from './bench-child';

/** Current case process, so an interrupted run can end it. */
let current: BenchChild | null = null;

/** Runs one case in a new process (bench/cases/case.process.ts) and returns what it reported. */
export async function runCaseProcess(spec: CaseSpec, timeoutMs: number): Promise<CaseResult> {
  const child = new BenchChild('bench/cases/case.process.ts', { BENCH_CASE: JSON.stringify(spec) }, `${spec.case}/${spec.variant}`);
  current = child;
  try {
    const { result } = await child.next('result', timeoutMs);
    await child.stopped(10_000);
    return result as CaseResult;
  } catch (err) {
    child.kill();
    await child.exited;
    return { case: spec.case, variant: spec.variant, rep: spec.rep, ok: false, error: (err as Error).message, metrics: {} };
  } finally {
    current = null;
  }
}

/** Kills the case process that is running, if any (on Ctrl-C). */
export function killCurrentCase(): void {
  current?.kill();
}
