/**
 * Thrown by a `runWorker` handler to say "not now, try again at this time". The job goes back to RETRYING
 * without using up an attempt (the server caps how often, with MAX_SNOOZES).
 */
export class RetryLaterError extends Error {
  readonly runAt: Date;

  /**
   * `when`: a time, or a delay in ms from now (a negative one means now). Throws a RangeError for an invalid Date or a
   * delay that is no finite number (a missing Retry-After header read as NaN, say): the attempt then fails with that
   * error, which says what was wrong.
   */
  constructor(when: Date | number, message = 'Handler asked to retry later') {
    super(message);
    this.name = 'RetryLaterError';
    this.runAt = retryTime(when);
  }
}

function retryTime(when: Date | number): Date {
  const runAt = when instanceof Date ? when : typeof when === 'number' ? new Date(Date.now() + Math.max(0, when)) : null;
  if (runAt === null || Number.isNaN(runAt.getTime())) {
    const given = typeof when === 'string' ? JSON.stringify(when) : String(when);
    throw new RangeError(`RetryLaterError needs a valid Date or a finite delay in milliseconds; got ${given}`);
  }
  return runAt;
}
