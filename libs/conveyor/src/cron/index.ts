export * from './cron-expression';
export * from './cron-schedule-options.interface';
export * from './cron-scheduler.service';
export * from './cron.module';
export * from './schedule-registry.service';
