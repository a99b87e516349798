/**
 * Thrown by `waitFor` when its condition did not hold in time. `cause` is the last error the probe
 * threw, if any, which usually says why.
 */
export class WaitForTimeoutError extends Error {
  constructor(
    message: string,
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`Timed out after ${timeoutMs} ms waiting for ${message}`, options);
    this.name = 'WaitForTimeoutError';
  }
}
