import { Job } from './job.types';

/** `waitFor` gave up before the job finished; `job` is the last state it saw. */
export class WaitForJobTimeoutError extends Error {
  constructor(
    readonly job: Job,
    readonly timeoutMs: number,
  ) {
    super(`Job ${job.id} was still ${job.status} after ${timeoutMs} ms`);
    this.name = 'WaitForJobTimeoutError';
  }
}
