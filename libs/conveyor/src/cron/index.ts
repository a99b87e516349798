export * from './cron-scheduler.service';
export * from './cron.module';
export * from './schedule-control.service';
export * from './schedule-registry.service';
export * from './schedule-ticks';
