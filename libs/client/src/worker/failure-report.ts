import { FailureReport } from '../worker-protocol.types';
import { PermanentJobError } from './permanent-job.error';
import { RetryLaterError } from './retry-later.error';

const MAX_MESSAGE = 4_000;
const MAX_STACK = 8_000;

/** How a thrown error is reported: the control errors say what should happen, anything else is a failed attempt. */
export function failureReport(err: unknown): FailureReport {
  if (err instanceof RetryLaterError) return { error: messageOf(err), retryAt: err.runAt };
  // Anything may be thrown, and `stack` may be set to anything: only text is sent.
  const stack = err instanceof Error && typeof err.stack === 'string' && err.stack ? err.stack.slice(0, MAX_STACK) : undefined;
  if (err instanceof PermanentJobError) return { error: messageOf(err), permanent: true, ...(stack ? { stack } : {}) };
  if (err instanceof Error) return { error: messageOf(err), errorName: err.name || 'Error', ...(stack ? { stack } : {}) };
  return { error: `Non-error thrown: ${describe(err)}`.slice(0, MAX_MESSAGE) };
}

function messageOf(err: Error): string {
  return (err.message || err.name || 'Error').slice(0, MAX_MESSAGE);
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
