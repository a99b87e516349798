import { Job } from './job.types';

/**
 * `waitFor` gave up before the job finished. `job` is the last state it saw (null when no read of the job
 * succeeded); when the server could not be read at the end (network trouble, a 5xx, a 429), `cause` is the last
 * such failure.
 */
export class WaitForJobTimeoutError extends Error {
  constructor(
    readonly jobId: string,
    readonly job: Job | null,
    readonly timeoutMs: number,
    cause?: unknown,
  ) {
    super(
      (job ? `Job ${jobId} was still ${job.status} after ${timeoutMs} ms` : `Job ${jobId} could not be read within ${timeoutMs} ms`) +
        (cause === undefined ? '' : ` (the last read failed: ${messageOf(cause)})`),
      cause === undefined ? undefined : { cause },
    );
    this.name = 'WaitForJobTimeoutError';
  }
}

/** An error's message (an Error of any realm), or the value as text. */
function messageOf(cause: unknown): string {
  const message = (cause as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(cause);
}
