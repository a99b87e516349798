import { CaseName, CaseSizes } from '../shared/bench-case';
import { CaseRunner } from './case-runner';

const small = (s: CaseSizes) => s.jobs;
const large = (s: CaseSizes) => s.largeJobs;

/**
 * A case whose module is loaded when it runs: a case process then holds the code of its own case only, not that of
 * the others (autocannon, the HTTP servers), which would count in the memory of a worker that never uses it.
 */
function loaded<M>(load: () => Promise<M>, runner: (module: M) => CaseRunner): CaseRunner {
  return async (spec) => runner(await load())(spec);
}

const drain = () => import('./drain.case');
const twoProcess = () => import('./two-process.case');
const latency = () => import('./latency.case');
const http = () => import('./http.case');

/** Every case by name. */
export const CASES: Record<CaseName, CaseRunner> = {
  enqueue: loaded(
    () => import('./enqueue.case'),
    (m) => m.enqueueCase,
  ),
  'enqueue-http-batch': loaded(
    () => import('./enqueue-http-batch.case'),
    (m) => m.enqueueHttpBatchCase,
  ),
  'drain-10': loaded(drain, (m) => m.drainCase({ concurrency: 10, jobs: small })),
  'drain-50': loaded(drain, (m) => m.drainCase({ concurrency: 50, jobs: small })),
  'drain-10-large': loaded(drain, (m) => m.drainCase({ concurrency: 10, jobs: large })),
  'drain-50-large': loaded(drain, (m) => m.drainCase({ concurrency: 50, jobs: large })),
  'drain-default': loaded(drain, (m) => m.drainCase({ concurrency: 10, jobs: large, defaults: true })),
  'drain-10-watched': loaded(drain, (m) => m.drainCase({ concurrency: 10, jobs: small, liveWatched: true })),
  'two-process-10': loaded(twoProcess, (m) => m.twoProcessCase(10, small)),
  'two-process-50': loaded(twoProcess, (m) => m.twoProcessCase(50, small)),
  'two-process-10-large': loaded(twoProcess, (m) => m.twoProcessCase(10, large)),
  'two-process-50-large': loaded(twoProcess, (m) => m.twoProcessCase(50, large)),
  latency: loaded(latency, (m) => m.latencyCase('worker')),
  'latency-remote': loaded(latency, (m) => m.latencyCase('other-process')),
  'http-express': loaded(http, (m) => m.httpCase('express')),
  'http-fastify': loaded(http, (m) => m.httpCase('fastify')),
  'growth-pending': loaded(drain, (m) => m.drainCase({ concurrency: 10, jobs: (s) => s.pendingJobs, fill: 'rows' })),
  'growth-pending-api': loaded(drain, (m) => m.drainCase({ concurrency: 10, jobs: (s) => s.pendingJobs, fill: 'rows', http: 'express' })),
  'growth-history': loaded(drain, (m) => m.drainCase({ concurrency: 10, jobs: large, history: (s) => s.history })),
  idle: loaded(
    () => import('./idle.case'),
    (m) => m.idleCase,
  ),
};
