import { ConveyorHttpError } from './conveyor-http.error';
import { ConveyorNetworkError } from './conveyor-network.error';

/**
 * Whether a failed request may succeed when sent again: no answer at all (ConveyorNetworkError), a request's own
 * timeout, a 5xx (the server restarting, its database away) or a 429. Any other answer is the server's word on the
 * request itself, and any other error a fault of the caller's or of this code, which sending again repeats.
 */
export function isTransientFailure(err: unknown): boolean {
  if (err instanceof ConveyorHttpError) return err.status >= 500 || err.status === 429;
  // The timeout's error is a DOMException, from Node's realm rather than the caller's: told apart by name.
  return err instanceof ConveyorNetworkError || (err as { name?: unknown } | null)?.name === 'TimeoutError';
}

/** How long to wait before sending again: the server's Retry-After, else `fallbackMs`. */
export function retryDelayOf(err: unknown, fallbackMs: number): number {
  return err instanceof ConveyorHttpError && err.retryAfterMs !== null ? err.retryAfterMs : fallbackMs;
}
