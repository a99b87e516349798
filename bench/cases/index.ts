import { CaseName } from '../shared/bench-case';
import { CaseRunner } from './case-runner';
import { drainCase } from './drain.case';
import { enqueueCase } from './enqueue.case';
import { httpCase } from './http.case';
import { idleCase } from './idle.case';
import { latencyCase } from './latency.case';
import { twoProcessCase } from './two-process.case';

/** Every case by name. */
export const CASES: Record<CaseName, CaseRunner> = {
  enqueue: enqueueCase,
  'drain-10': drainCase(10),
  'drain-50': drainCase(50),
  latency: latencyCase,
  'two-process': twoProcessCase,
  http: httpCase,
  backlog: drainCase(10, { backlog: true }),
  idle: idleCase,
};
