/** `drainQueue` gave up: jobs were still due or running when its time ran out. */
export class DrainTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly remaining: number,
  ) {
    super(`The queue was not drained within ${timeoutMs} ms: ${remaining} jobs still due or running`);
    this.name = 'DrainTimeoutError';
  }
}
