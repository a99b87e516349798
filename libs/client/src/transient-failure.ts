import { ConveyorHttpError } from './conveyor-http.error';

/**
 * Whether a failed request may succeed when sent again: no answer at all (fetch's network error, the request's own
 * timeout), a 5xx (the server restarting, its database away) or a 429. Any other answer is the server's word on
 * the request itself, and any other error a fault of the caller's or of this code, which sending again repeats.
 * Errors are told apart by name, as fetch's come from Node's realm rather than the caller's.
 */
export function isTransientFailure(err: unknown): boolean {
  if (err instanceof ConveyorHttpError) return err.status >= 500 || err.status === 429;
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'TypeError' || name === 'TimeoutError' || name === 'AbortError';
}

/** How long to wait before sending again: the server's Retry-After, else `fallbackMs`. */
export function retryDelayOf(err: unknown, fallbackMs: number): number {
  return err instanceof ConveyorHttpError && err.retryAfterMs !== null ? err.retryAfterMs : fallbackMs;
}
