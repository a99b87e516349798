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
export * from './events/conveyor-events.service';
export * from './handlers/job-context.interface';
export * from './handlers/job-handler-options.interface';
export * from './handlers/job-handler.decorator';
export * from './handlers/job-handler.host';
export * from './health/conveyor-health.indicator';
export * from './jobs/job.entity';
export * from './jobs/job-request.interface';
export * from './jobs/job-status';
export * from './jobs/jobs.service';
export * from './jobs/queues.service';
export * from './jobs/queue-throughput.interface';
export * from './jobs/bulk-retry.service';
export * from './logging';
export * from './metrics';
export * from './worker/worker-orchestrator.service';
