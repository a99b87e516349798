/**
 * Thrown by a handler to say "not now, try again at this time" (e.g. a downstream system is busy).
 * The job goes back to RETRYING without using up an attempt; `maxSnoozes` caps how often this may happen.
 */
export class RetryLaterError extends Error {
  readonly runAt: Date;

  constructor(when: Date | number, message = 'Handler asked to retry later') {
    super(message);
    this.name = 'RetryLaterError';
    this.runAt = when instanceof Date ? when : new Date(Date.now() + Math.max(0, when));
  }
}
