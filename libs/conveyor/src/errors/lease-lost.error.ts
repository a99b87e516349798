/**
 * The reason on a handler's AbortSignal when this worker's claim on the job is gone: its lease could not be extended in
 * time and the job may already run elsewhere. Nothing the attempt does next is stored.
 */
export class LeaseLostError extends Error {
  constructor(readonly jobId: string) {
    super(`Lost the claim on job ${jobId}: its lease expired and it was handed to another worker.`);
    this.name = 'LeaseLostError';
  }
}
