/**
 * Thrown by a `runWorker` handler to say "not now, try again at this time". The job goes back to RETRYING
 * without using up an attempt (the server caps how often, with MAX_SNOOZES).
 */
export class RetryLaterError extends Error {
  readonly runAt: Date;

  /** `when`: a time, or a delay in ms from now. */
  constructor(when: Date | number, message = 'Handler asked to retry later') {
    super(message);
    this.name = 'RetryLaterError';
    this.runAt = when instanceof Date ? when : new Date(Date.now() + Math.max(0, when));
  }
}
