/** How one environment variable is read. */
/** `keys` is `role:key` pairs; their text never appears in an error. `json` is any JSON value. */
export type EnvKind = 'int' | 'number' | 'bool' | 'string' | 'list' | 'map' | 'keys' | 'json';

/** An environment variable, the setting it feeds, its default (for the table in docs/configuration.md) and what it does. */
export interface EnvSetting {
  env: string;
  kind: EnvKind;
  /** Key in the Conveyor engine options, or in the app settings. */
  target: string;
  scope: 'engine' | 'app';
  default: string;
  description: string;
}

/**
 * Every setting the service reads, in one table: parsing, validation messages and docs/configuration.md's
 * configuration table all come from here.
 */
export const ENV_SETTINGS: readonly EnvSetting[] = [
  { env: 'PORT', kind: 'int', target: 'port', scope: 'app', default: '3000', description: 'HTTP port' },
  { env: 'DATABASE_URL', kind: 'string', target: 'databaseUrl', scope: 'app', default: '(embedded PostgreSQL)', description: 'PostgreSQL connection URL; without it an embedded PostgreSQL starts with data in CONVEYOR_DATA_DIR' },
  { env: 'CONVEYOR_DATA_DIR', kind: 'string', target: 'dataDir', scope: 'app', default: './.conveyor/pgdata', description: 'Data folder of the embedded PostgreSQL' },
  { env: 'DATABASE_SCHEMA', kind: 'string', target: 'schema', scope: 'app', default: 'public', description: 'Schema holding the conveyor_* tables' },
  { env: 'DB_POOL_SIZE', kind: 'int', target: 'poolSize', scope: 'app', default: '10', description: 'Most PostgreSQL connections in the pool' },
  { env: 'DB_POOL_TIMEOUT_MS', kind: 'int', target: 'poolTimeoutMs', scope: 'app', default: '3000', description: 'Longest wait for a pooled connection before a request gets 503' },
  { env: 'BODY_LIMIT_BYTES', kind: 'int', target: 'bodyLimitBytes', scope: 'app', default: '1048576', description: 'Largest request body (larger: 413)' },
  { env: 'API_KEYS', kind: 'keys', target: 'apiKeys', scope: 'app', default: '(none: no authentication, dev mode)', description: 'API keys as role:key pairs, comma-separated, e.g. producer:<key>,admin:<key>; roles producer (submit, read), worker (also claim and report jobs over HTTP) and admin (everything)' },
  { env: 'RATE_LIMIT_WINDOW_MS', kind: 'int', target: 'rateLimitWindowMs', scope: 'app', default: '60000', description: 'Window of the per-key (or per-IP) request limit' },
  { env: 'RATE_LIMIT_MAX', kind: 'int', target: 'rateLimitMax', scope: 'app', default: '6000', description: 'Requests per key (or IP) per window before 429 (0 = no limit); health is never limited' },
  { env: 'LOG_LEVEL', kind: 'string', target: 'logLevel', scope: 'app', default: 'log', description: 'Lowest log level: fatal, error, warn, log (or info), debug, verbose (job successes are logged at debug, failed attempts at warn)' },
  { env: 'LOG_FORMAT', kind: 'string', target: 'logFormat', scope: 'app', default: '(json when NODE_ENV=production, else pretty)', description: 'json: one JSON object per line ({time, level, context, msg, ...fields}; job lines carry jobId, type, attempt, worker); pretty: Nest console format' },
  { env: 'SMTP_URL', kind: 'string', target: 'smtpUrl', scope: 'app', default: '(unset: write .eml files)', description: 'SMTP server for SEND_EMAIL, e.g. smtp://user:pass@host:587' },
  { env: 'EMAIL_FROM', kind: 'string', target: 'emailFrom', scope: 'app', default: 'conveyor@localhost', description: 'Sender address of SEND_EMAIL' },
  { env: 'OUTBOX_DIR', kind: 'string', target: 'outboxDir', scope: 'app', default: './.conveyor/outbox', description: 'Where SEND_EMAIL writes .eml files when SMTP_URL is unset' },
  { env: 'WEBHOOK_TIMEOUT_MS', kind: 'int', target: 'webhookTimeoutMs', scope: 'app', default: '10000', description: 'HTTP timeout of SEND_WEBHOOK, and of each request FORWARD_DOCUMENT makes' },
  { env: 'PDF_DIR', kind: 'string', target: 'pdfDir', scope: 'app', default: './.conveyor/pdfs', description: 'Where GENERATE_PDF writes its files: one per job, named by the job id' },
  { env: 'CLAIM_STRATEGY', kind: 'string', target: 'claimStrategy', scope: 'engine', default: 'skip-locked', description: 'skip-locked or optimistic' },
  { env: 'RUN_WORKERS', kind: 'bool', target: 'runWorkers', scope: 'engine', default: 'true', description: 'false for an API-only instance' },
  { env: 'WORKER_ID', kind: 'string', target: 'workerId', scope: 'engine', default: 'host:pid:random', description: 'Name of this worker in locked_by and error history' },
  { env: 'CONCURRENCY', kind: 'int', target: 'concurrency', scope: 'engine', default: '10', description: 'Handlers running at once in this process' },
  { env: 'QUEUE_CONCURRENCY', kind: 'map', target: 'queueConcurrency', scope: 'engine', default: '(none)', description: 'Per-queue caps, e.g. emails:5,webhooks:2' },
  { env: 'CLAIM_BATCH_SIZE', kind: 'int', target: 'claimBatchSize', scope: 'engine', default: '100', description: 'Most jobs one claim statement takes' },
  { env: 'PREFETCH', kind: 'int', target: 'prefetch', scope: 'engine', default: '10', description: 'Claimed jobs kept ready beyond the running ones' },
  { env: 'POLL_INTERVAL_MS', kind: 'int', target: 'pollIntervalMs', scope: 'engine', default: '1000', description: 'Fallback poll interval (LISTEN/NOTIFY wakes workers sooner)' },
  { env: 'LISTEN', kind: 'bool', target: 'listen', scope: 'engine', default: 'true', description: 'Wake workers with LISTEN/NOTIFY' },
  { env: 'DATABASE_POOLER', kind: 'string', target: 'pooler', scope: 'engine', default: 'none', description: 'transaction when DATABASE_URL goes through a pooler in transaction mode (PgBouncer pool_mode=transaction): no named prepared statements, startup options or pipelining, and LISTEN only on LISTEN_DATABASE_URL (else workers poll)' },
  { env: 'LISTEN_DATABASE_URL', kind: 'string', target: 'listenUrl', scope: 'engine', default: '(DATABASE_URL; none with DATABASE_POOLER=transaction)', description: 'Direct PostgreSQL URL (past the pooler) for the LISTEN connection' },
  { env: 'LEASE_MS', kind: 'int', target: 'leaseMs', scope: 'engine', default: '30000', description: 'Claim lease; a job whose worker stops heartbeating is rescued after it' },
  { env: 'HEARTBEAT_INTERVAL_MS', kind: 'int', target: 'heartbeatIntervalMs', scope: 'engine', default: '10000', description: 'How often held leases are extended (at most LEASE_MS/2)' },
  { env: 'MAINTENANCE_INTERVAL_MS', kind: 'int', target: 'maintenanceIntervalMs', scope: 'engine', default: '10000', description: 'How often the elected leader rescues jobs whose lease expired (old completed jobs are pruned every sixth tick, at most once a minute)' },
  { env: 'SHUTDOWN_GRACE_MS', kind: 'int', target: 'shutdownGraceMs', scope: 'engine', default: '10000', description: 'Time running jobs get to finish on SIGTERM before they are handed back' },
  { env: 'COMPLETION_BATCH_SIZE', kind: 'int', target: 'completionBatchSize', scope: 'engine', default: '100', description: 'Most outcomes written per statement' },
  { env: 'COMPLETION_FLUSH_MS', kind: 'int', target: 'completionFlushMs', scope: 'engine', default: '2', description: 'Longest an outcome waits before it is written' },
  { env: 'MAX_ATTEMPTS', kind: 'int', target: 'defaultMaxAttempts', scope: 'engine', default: '5', description: 'Attempts before DEAD, unless the handler or submission says otherwise' },
  { env: 'JOB_TIMEOUT_MS', kind: 'int', target: 'defaultTimeoutMs', scope: 'engine', default: '300000', description: 'Handler timeout unless the handler sets one' },
  { env: 'BACKOFF_BASE_MS', kind: 'int', target: 'backoff.baseMs', scope: 'engine', default: '1000', description: 'First retry delay' },
  { env: 'BACKOFF_FACTOR', kind: 'number', target: 'backoff.factor', scope: 'engine', default: '2', description: 'Retry delay growth per attempt' },
  { env: 'BACKOFF_MAX_MS', kind: 'int', target: 'backoff.maxMs', scope: 'engine', default: '3600000', description: 'Longest retry delay' },
  { env: 'BACKOFF_JITTER', kind: 'number', target: 'backoff.jitter', scope: 'engine', default: '0.5', description: 'Random fraction of each retry delay (0-1)' },
  { env: 'MAX_SNOOZES', kind: 'int', target: 'maxSnoozes', scope: 'engine', default: '100', description: 'How often a job may ask to retry later before it is DEAD' },
  { env: 'RETENTION_COMPLETED_MS', kind: 'int', target: 'retentionCompletedMs', scope: 'engine', default: '604800000', description: 'COMPLETED jobs are deleted this long after finishing (0 = keep)' },
  { env: 'EXTERNAL_TYPES', kind: 'list', target: 'externalTypes', scope: 'engine', default: '(none)', description: 'Job types worked only by external workers over HTTP (POST /queues/:queue/claim), comma-separated; in-process workers never claim them' },
  { env: 'CRON_SCHEDULES', kind: 'json', target: 'schedules', scope: 'engine', default: '(none)', description: 'Recurring jobs as a JSON list of {name, type, cron, timezone?, payload?, catchUp?}, e.g. [{"name":"nightly-report","type":"REPORT","cron":"0 3 * * *"}]; cron has 5 fields or 6 with seconds first; each tick is enqueued once across all instances' },
  { env: 'MAX_BATCH_SIZE', kind: 'int', target: 'maxBatchSize', scope: 'engine', default: '1000', description: 'Most jobs in one POST /jobs/batch' },
];
