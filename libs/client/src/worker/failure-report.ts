import { FailureReport } from '../worker-protocol.types';
import { PermanentJobError } from './permanent-job.error';
import { RetryLaterError } from './retry-later.error';

const MAX_MESSAGE = 4_000;
/** The server refuses a longer `errorName` (400), which would leave the job RUNNING until its lease ran out. */
const MAX_NAME = 200;
const MAX_STACK = 8_000;
/** The longest `retryInMs` the service takes (a year). */
const MAX_RETRY_IN_MS = 366 * 86_400_000;

/**
 * How a thrown error is reported: the control errors say what should happen, anything else is a failed attempt. Every
 * field is text within the server's limits whatever was thrown: a report it refused would go unwritten.
 */
export function failureReport(err: unknown): FailureReport {
  if (err instanceof RetryLaterError) return { error: messageOf(err), ...retryTime(err.runAt) };
  // Anything may be thrown, and `stack` may be set to anything: only text is sent.
  const stack = err instanceof Error ? textOf(err.stack).slice(0, MAX_STACK) || undefined : undefined;
  if (err instanceof PermanentJobError) return { error: messageOf(err), permanent: true, ...(stack ? { stack } : {}) };
  if (err instanceof Error)
    return { error: messageOf(err), errorName: (textOf(err.name) || 'Error').slice(0, MAX_NAME), ...(stack ? { stack } : {}) };
  return { error: `Non-error thrown: ${describe(err)}`.slice(0, MAX_MESSAGE) };
}

/**
 * A retry time as a delay from now: the service counts it on its own clock, so a clock here that is off (by minutes,
 * say) moves the retry by nothing, where sent as a time it would move it by as much, or make it due at once. A time
 * past the longest delay the service takes goes as it is.
 */
function retryTime(runAt: Date): Pick<FailureReport, 'retryAt' | 'retryInMs'> {
  const retryInMs = Math.max(0, Math.ceil(runAt.getTime() - Date.now()));
  return retryInMs <= MAX_RETRY_IN_MS ? { retryInMs } : { retryAt: runAt };
}

function messageOf(err: Error): string {
  return (textOf(err.message) || textOf(err.name) || 'Error').slice(0, MAX_MESSAGE);
}

/** `message`, `name` and `stack` may be set to anything: only text counts, anything else as none. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
