/**
 * Runs one case in a process of its own: `node -r ./test/support/register-ts.js bench/cases/case.process.ts`
 * with the case in BENCH_CASE (JSON, see CaseSpec). Reports a `result` event holding the CaseResult.
 */
import 'reflect-metadata';
import { CASES } from './index';
import { CaseResult, CaseSpec } from '../shared/bench-case';
import { emitEvent, readJsonEnv, runChild } from '../processes/bench-protocol';

runChild(async () => {
  const spec = readJsonEnv<CaseSpec>('BENCH_CASE');
  const who = { case: spec.case, variant: spec.variant, rep: spec.rep };
  let result: CaseResult;
  try {
    const outcome = await CASES[spec.case](spec);
    result = { ...who, ok: true, ...outcome };
  } catch (err) {
    result = { ...who, ok: false, error: (err as Error).message, metrics: {} };
  }
  emitEvent({ event: 'result', result });
});
