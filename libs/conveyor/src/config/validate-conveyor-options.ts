import { validateCronSchedule } from './validate-cron-schedule';
import { ConveyorConfigError } from '../errors/conveyor-config.error';
import { hasLoneSurrogate } from '../job/json-safety';
import { CronScheduleError } from '../errors/cron-schedule.error';
import { CLAIM_STRATEGY_NAMES } from './claim-strategy-name';
import { isWellFormedName, NAME_RULE } from './name-rule';
import { conveyorDefaults } from './conveyor-defaults';
import { POOLER_MODES } from './pooler-mode';
import { ConveyorOptions } from './conveyor-options.interface';
import { checkBackoff, checkConcurrency, checkMaxAttempts, checkTimeoutMs, definedFields, integer, readBackoff } from './option-rules';
import { isPostgresUrl } from './postgres-url';

/** What a caller may pass: any subset, with backoff partial too. */
export type ConveyorOptionsInput = OptionalFields<Omit<ConveyorOptions, 'backoff'>> & {
  backoff?: OptionalFields<ConveyorOptions['backoff']> | undefined;
};

/**
 * Every field optional, and `undefined` taken for absent (the option's default): validation drops undefined
 * fields, so a host compiling with `exactOptionalPropertyTypes` may pass `process.env.X` or a maybe-missing value.
 */
type OptionalFields<T> = { [K in keyof T]?: T[K] | undefined };

/** A hundred years of 365 days. */
const MAX_RETENTION_MS = 100 * 365 * 86_400_000;

/** Every option's name; the compiler checks the list against ConveyorOptions, both ways. */
const OPTION_NAMES: ReadonlySet<string> = new Set(
  Object.keys({
    claimStrategy: true,
    workerId: true,
    runWorkers: true,
    concurrency: true,
    queueConcurrency: true,
    claimBatchSize: true,
    prefetch: true,
    pollIntervalMs: true,
    listen: true,
    pooler: true,
    listenUrl: true,
    leaseMs: true,
    heartbeatIntervalMs: true,
    maintenanceIntervalMs: true,
    shutdownGraceMs: true,
    livenessEventLoopDelayMs: true,
    livenessClaimStallMs: true,
    completionBatchSize: true,
    completionFlushMs: true,
    defaultMaxAttempts: true,
    defaultTimeoutMs: true,
    backoff: true,
    maxSnoozes: true,
    retentionCompletedMs: true,
    retentionBatchSize: true,
    externalTypes: true,
    maxBatchSize: true,
    metricsMaxQueues: true,
    schedules: true,
    migrate: true,
  } satisfies Record<keyof ConveyorOptions, true>),
);

/**
 * Refuses a key that is no option, which would otherwise be ignored: TypeScript catches a misspelt option in
 * `forRoot({...})`, not in the object a `forRootAsync` factory returns, nor in options built at run time.
 */
function mustBeKnownKeys(input: object): void {
  for (const key of Object.keys(input)) {
    if (OPTION_NAMES.has(key)) continue;
    if (key === 'dataSourceName') {
      // The DataSource is bound when the module is defined, before any factory runs.
      throw new ConveyorConfigError(key, 'goes beside useFactory, not in what it returns: forRootAsync({ dataSourceName, useFactory })');
    }
    throw new ConveyorConfigError(key, 'is not an option of ConveyorModule');
  }
}

/**
 * Merges the input over the defaults and checks every field, naming the first bad one.
 * This is the single validation step for engine configuration.
 */
export function validateConveyorOptions(input: ConveyorOptionsInput = {}): ConveyorOptions {
  const defaults = conveyorDefaults();
  mustBeKnownKeys(input);
  const o: ConveyorOptions = {
    ...defaults,
    ...definedFields(input),
    backoff: readBackoff(input.backoff, defaults.backoff, 'backoff'),
  } as ConveyorOptions;

  if (!CLAIM_STRATEGY_NAMES.includes(o.claimStrategy)) {
    throw new ConveyorConfigError('claimStrategy', `must be one of ${CLAIM_STRATEGY_NAMES.join(', ')}, got "${String(o.claimStrategy)}"`);
  }
  // The id is every claim's locked_by: text PostgreSQL cannot store as sent would fail or alter every claim.
  if (typeof o.workerId !== 'string' || o.workerId.trim().length === 0 || o.workerId.length > 200) {
    throw new ConveyorConfigError('workerId', 'must be a string of at most 200 characters, not only spaces');
  }
  if (o.workerId.includes('\u0000') || hasLoneSurrogate(o.workerId)) {
    throw new ConveyorConfigError('workerId', 'must not contain a NUL character or an unpaired UTF-16 surrogate');
  }
  if (!POOLER_MODES.includes(o.pooler)) {
    throw new ConveyorConfigError('pooler', `must be one of ${POOLER_MODES.join(', ')}, got "${String(o.pooler)}"`);
  }
  if (o.listenUrl !== undefined && !isPostgresUrl(o.listenUrl)) {
    throw new ConveyorConfigError('listenUrl', 'must be a postgres:// or postgresql:// connection URL');
  }
  checkConcurrency('concurrency', o.concurrency);
  if (o.queueConcurrency === null || typeof o.queueConcurrency !== 'object' || Array.isArray(o.queueConcurrency)) {
    throw new ConveyorConfigError('queueConcurrency', 'must be an object of caps per queue, such as { emails: 5 }');
  }
  for (const [queue, limit] of Object.entries(o.queueConcurrency)) {
    // A cap on a name no job's queue can have would be ignored without a word.
    if (!isWellFormedName(queue))
      throw new ConveyorConfigError(`queueConcurrency.${queue}`, `is not a queue name: a queue name ${NAME_RULE}`);
    checkConcurrency(`queueConcurrency.${queue}`, limit);
  }
  integer('claimBatchSize', o.claimBatchSize, 1, 10_000);
  if (o.prefetch !== 'auto') integer('prefetch', o.prefetch, 0, 10_000);
  integer('pollIntervalMs', o.pollIntervalMs, 10, 3_600_000);
  integer('leaseMs', o.leaseMs, 1000, 86_400_000);
  integer('heartbeatIntervalMs', o.heartbeatIntervalMs, 100, 86_400_000);
  if (o.heartbeatIntervalMs * 2 > o.leaseMs) {
    throw new ConveyorConfigError('heartbeatIntervalMs', `must be at most half of leaseMs (${o.leaseMs})`);
  }
  integer('maintenanceIntervalMs', o.maintenanceIntervalMs, 50, 3_600_000);
  integer('shutdownGraceMs', o.shutdownGraceMs, 0, 3_600_000);
  integer('livenessEventLoopDelayMs', o.livenessEventLoopDelayMs, 0, 3_600_000);
  integer('livenessClaimStallMs', o.livenessClaimStallMs, 0, 86_400_000);
  integer('completionBatchSize', o.completionBatchSize, 1, 10_000);
  integer('completionFlushMs', o.completionFlushMs, 0, 10_000);
  checkMaxAttempts('defaultMaxAttempts', o.defaultMaxAttempts);
  checkTimeoutMs('defaultTimeoutMs', o.defaultTimeoutMs);
  checkBackoff(o.backoff, 'backoff');
  integer('maxSnoozes', o.maxSnoozes, 0, 1_000_000);
  // now() - retentionCompletedMs must stay a timestamp PostgreSQL has (from 4713 BC): past about 6,700 years every
  // retention round fails with "timestamp out of range". A century is a bound nobody means to exceed; 0 keeps all.
  integer('retentionCompletedMs', o.retentionCompletedMs, 0, MAX_RETENTION_MS);
  integer('retentionBatchSize', o.retentionBatchSize, 1, 100_000);
  integer('maxBatchSize', o.maxBatchSize, 1, 100_000);
  integer('metricsMaxQueues', o.metricsMaxQueues, 1, 100_000);
  if (!Array.isArray(o.externalTypes) || o.externalTypes.some((t) => typeof t !== 'string' || t.length === 0)) {
    throw new ConveyorConfigError('externalTypes', 'must be a list of non-empty type names');
  }
  validateSchedules(o.schedules);
  return o;
}

/** Each engine-option schedule on its own, then the names across them (they key the schedules' progress). */
function validateSchedules(schedules: unknown): void {
  if (!Array.isArray(schedules))
    throw new ConveyorConfigError('schedules', 'must be a list of { name, type, cron, timezone?, payload?, catchUp? }');
  const names = new Set<string>();
  schedules.forEach((s: unknown, i) => {
    validateCronSchedule(s, `schedules[${i}]`, true);
    const name = (s as { name: string }).name;
    if (names.has(name)) throw new CronScheduleError(`schedules[${i}].name`, `"${name}" is used by another schedule; names must be unique`);
    names.add(name);
  });
}
