import { ConveyorHttpError } from './conveyor-http.error';

/**
 * Whether a failed request may succeed when sent again: no answer at all (network trouble, a refused connection,
 * the request's own timeout), a 5xx (the server restarting, its database away) or a 429. Any other answer is the
 * server's word on the request itself.
 */
export function isTransientFailure(err: unknown): boolean {
  return !(err instanceof ConveyorHttpError) || err.status >= 500 || err.status === 429;
}

/** How long to wait before sending again: the server's Retry-After, else `fallbackMs`. */
export function retryDelayOf(err: unknown, fallbackMs: number): number {
  return err instanceof ConveyorHttpError && err.retryAfterMs !== null ? err.retryAfterMs : fallbackMs;
}
