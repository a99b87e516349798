/** Thrown by a `runWorker` handler to say "this will never work": the job is DEAD at once, without retries. */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}
