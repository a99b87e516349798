import { CaseName, CaseSizes } from '../shared/bench-case';
import { CaseRunner } from './case-runner';
import { drainCase } from './drain.case';
import { enqueueHttpBatchCase } from './enqueue-http-batch.case';
import { enqueueCase } from './enqueue.case';
import { httpCase } from './http.case';
import { idleCase } from './idle.case';
import { latencyCase } from './latency.case';
import { twoProcessCase } from './two-process.case';

const small = (s: CaseSizes) => s.jobs;
const large = (s: CaseSizes) => s.largeJobs;

/** Every case by name. */
export const CASES: Record<CaseName, CaseRunner> = {
  enqueue: enqueueCase,
  'enqueue-http-batch': enqueueHttpBatchCase,
  'drain-10': drainCase({ concurrency: 10, jobs: small }),
  'drain-50': drainCase({ concurrency: 50, jobs: small }),
  'drain-10-large': drainCase({ concurrency: 10, jobs: large }),
  'drain-50-large': drainCase({ concurrency: 50, jobs: large }),
  'drain-default': drainCase({ concurrency: 10, jobs: large, defaults: true }),
  'two-process-10': twoProcessCase(10, small),
  'two-process-50': twoProcessCase(50, small),
  'two-process-10-large': twoProcessCase(10, large),
  'two-process-50-large': twoProcessCase(50, large),
  latency: latencyCase('worker'),
  'latency-remote': latencyCase('other-process'),
  'http-express': httpCase('express'),
  'http-fastify': httpCase('fastify'),
  'growth-pending': drainCase({ concurrency: 10, jobs: (s) => s.pendingJobs, fill: 'rows' }),
  'growth-history': drainCase({ concurrency: 10, jobs: large, history: (s) => s.history }),
  idle: idleCase,
};
