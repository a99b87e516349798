/** Abort reason when the heartbeat found the claim gone (lease expired and the job was rescued). */
export class LeaseLostError extends Error {
  constructor(jobId: string) {
    super(`Lost the claim on job ${jobId}: its lease expired and it was handed to another worker.`);
    this.name = 'LeaseLostError';
  }
}

/** Abort reason when the worker stops before the handler finished; the job is handed back. */
export class WorkerShutdownError extends Error {
  constructor() {
    super('Worker shut down before the handler finished; the job was handed back.');
    this.name = 'WorkerShutdownError';
  }
}
