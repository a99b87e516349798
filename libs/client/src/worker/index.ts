export * from './abort-reasons';
export * from './permanent-job.error';
export * from './retry-later.error';
export * from './run-worker';
export * from './run-worker-options.interface';
export * from './worker-handler.types';
