export * from './cron-scheduler.service';
export * from './cron.module';
export * from './schedule-registry.service';
