/**
 * @conveyor/core: what a host app uses — the module and its options, the handler decorator and base class, the
 * services that enqueue and manage jobs, the job's shape, its statuses and errors, health and metrics for the host's
 * own endpoints, logging and the event stream. The REST API, OpenAPI and dashboard are `@conveyor/core/http`.
 * The engine's parts (claiming, the poller, the worker pool, leases, maintenance, connections, SQL) are internal.
 */
export * from './config';
export * from './conveyor.module';
export * from './conveyor.module-definition';
export * from './cron';
export * from './errors';
export * from './observation/events/conveyor-events.service';
export * from './handlers/job-context.interface';
export * from './handlers/job-handler-options.interface';
export * from './handlers/job-handler.decorator';
export * from './handlers/job-handler.host';
export * from './observation/health/conveyor-health.indicator';
export * from './job/job';
export * from './job/job-error-entry.interface';
export * from './job/job-error-kind';
export * from './job/job-progress';
export * from './submission/job-request.interface';
export * from './job/job-status';
export * from './submission/jobs.service';
export * from './submission/queues.service';
export * from './submission/queue-throughput.interface';
export * from './submission/bulk-retry.service';
export * from './observation/logging';
export * from './observation/metrics';
export * from './worker-orchestrator.service';
export * from './shutdown-signals';
export { conveyorMigrationScript } from './storage/migrations/migration-script';
export type { MigrationScriptOptions } from './storage/migrations/migration-script';
export { connectionErrorText, isConnectionError } from './storage/connections/connection-errors';
