export * from './api-access.decorator';
export * from './api-errors.decorator';
export * from './bulk-retry.dto';
export * from './error-body.dto';
export * from './health.dto';
export * from './job.dto';
export * from './queue.dto';
export * from './setup-api-docs';
