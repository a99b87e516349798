export * from './drain-queue';
export * from './drain-timeout.error';
export * from './job-run-outcome';
export * from './run-job';
export * from './test-job';
