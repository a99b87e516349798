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
