export * from './backoff-options.interface';
export * from './claim-strategy-name';
export * from './conveyor-defaults';
export * from './conveyor-options.interface';
export * from './pooler-mode';
export * from './validate-conveyor-options';
export * from './cron-expression';
export * from './cron-schedule-options.interface';
