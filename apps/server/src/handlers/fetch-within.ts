import { fetchFailureReason } from './fetch-failure-reason';

/** How {@link fetchWithin} bounds a request and names its failures. */
export interface FetchWithinOptions {
  /**
   * The job's signal. When it fired, its reason is thrown as it is: the engine's own reason (its timeout,
   * shutdown, a lost claim) decides what happens next, not a network error it caused.
   */
  signal: AbortSignal;
  /** Longest wait for the answer (and its body, which is read under the same signal). */
  timeoutMs: number;
  /** The request as errors name it, e.g. `POST https://example.com`: origins only, since paths and queries often carry secrets. */
  target: string;
  /** The error thrown when no answer came: an ordinary failure, retried with backoff. */
  error: new (message: string, options?: { cause?: unknown }) => Error;
}

/**
 * `fetch` bounded by the job's AbortSignal and a per-request timeout, failing with one readable line:
 * "`target` got no answer within N ms" or "`target` failed: connect ECONNREFUSED ...". Redirects are
 * the caller's choice (`init.redirect`).
 */
export async function fetchWithin(url: string | URL, init: RequestInit, options: FetchWithinOptions): Promise<Response> {
  const { signal, timeoutMs, target, error: FailureError } = options;
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    return await fetch(url, { ...init, signal: AbortSignal.any([signal, deadline]) });
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (deadline.aborted) throw new FailureError(`${target} got no answer within ${timeoutMs} ms`, { cause: err });
    throw new FailureError(`${target} failed: ${fetchFailureReason(err)}`, { cause: err });
  }
}
