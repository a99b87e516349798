/** Thrown by a handler to say "this job should no longer run": the job ends CANCELLED. */
export class CancelJobError extends Error {
  constructor(message = 'Cancelled by handler') {
    super(message);
    this.name = 'CancelJobError';
  }
}
