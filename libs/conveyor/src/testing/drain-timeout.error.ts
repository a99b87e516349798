/** `drainQueue` gave up: jobs were still due or running when its time ran out. */
export class DrainTimeoutError extends Error {
  /** Every job left: `due` and `running` together. */
  readonly remaining: number;

  constructor(
    readonly timeoutMs: number,
    /** Jobs due (claimable now) that no worker had started. */
    readonly due: number,
    /** Jobs this app's worker held: claimed, running, or with their outcome still to be written. */
    readonly running: number,
  ) {
    super(`The queue was not drained within ${timeoutMs} ms: ${due} ${due === 1 ? 'job' : 'jobs'} due, ${running} running`);
    this.name = 'DrainTimeoutError';
    this.remaining = due + running;
  }
}
