/** Abort reason (and `ctx.heartbeat()` error) when the claim is gone: the lease expired and the job was rescued. */
export class LeaseLostError extends Error {
  constructor(readonly jobId: string) {
    super(`Lost the claim on job ${jobId}: its lease expired and it may run elsewhere; its outcome will not be reported.`);
    this.name = 'LeaseLostError';
  }
}

/** Abort reason when the worker stopped before the handler finished; the job is handed back. */
export class WorkerStoppedError extends Error {
  constructor() {
    super('Worker stopped before the handler finished; the job was handed back.');
    this.name = 'WorkerStoppedError';
  }
}

/**
 * Abort reason (and `ctx.heartbeat()` error) when an operator cancelled the job while this worker ran it: the server
 * answered a heartbeat or report with 409 and `jobStatus: 'CANCELLED'`. The job is CANCELLED; nothing is reported.
 */
export class JobCancelledError extends Error {
  constructor(readonly jobId: string) {
    super(`Job ${jobId} was cancelled while this worker ran it; its outcome will not be reported.`);
    this.name = 'JobCancelledError';
  }
}
