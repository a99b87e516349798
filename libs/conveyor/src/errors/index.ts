export * from './cancel-job.error';
export * from './conveyor-config.error';
export * from './job-handler-definition.error';
export * from './job-request.errors';
export * from './job-timeout.error';
export * from './permanent-job.error';
export * from './retry-later.error';
export * from './cron-schedule.error';
