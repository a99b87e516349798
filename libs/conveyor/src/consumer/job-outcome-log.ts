import { Logger, LogLevel } from '@nestjs/common';
import { JobOutcome } from '../observation/events/conveyor-events.service';
import { Job } from '../job/job';
import { jobLog } from '../observation/logging/job-log-fields';
import { willLog } from '../observation/logging/log-level';
import { LogFields } from '../observation/logging/log-record';
import { FinishRow } from '../storage/statements/finish-row';

/**
 * How loudly each outcome is logged. A failure is what an operator looks for, so it is a warning (an
 * error once the job is dead); successes, snoozes and hand-backs are routine and only show at `debug`.
 */
const LEVELS: Record<JobOutcome, Exclude<LogLevel, 'fatal'>> = {
  completed: 'debug',
  snoozed: 'debug',
  handed_back: 'debug',
  failed: 'warn',
  cancelled: 'log',
  dead: 'error',
};

const OUTCOME_MESSAGES: Record<JobOutcome, string> = {
  completed: 'Job completed',
  snoozed: 'Job asked to run later',
  handed_back: 'Job handed back unrun or unfinished',
  failed: 'Job attempt failed; it will be retried',
  cancelled: 'Job cancelled by its handler',
  dead: 'Job is dead: no attempts left, or a permanent error',
};

/** Logs one written outcome, with the job's fields, what happened, and when it runs again. */
export function logOutcome(logger: Logger, job: Job, row: FinishRow, worker: string, durationMs: number, outcome: JobOutcome): void {
  const level = LEVELS[outcome];
  if (!willLog(logger, level)) return; // a completion per job: don't build lines nobody sees
  const fields: LogFields = { queue: job.queue, outcome, durationMs: Math.round(durationMs) };
  if (row.error) fields.error = row.error;
  if (row.delay_ms !== undefined && row.delay_ms !== null && outcome !== 'handed_back') fields.retryInMs = row.delay_ms;
  // The stack of every attempt is in the job's error history; the log repeats only the last one's.
  const stack = row.entry?.stack;
  if (typeof stack === 'string' && outcome === 'dead') fields.stack = stack;
  logger[level](jobLog(OUTCOME_MESSAGES[outcome], job, worker, fields));
}
