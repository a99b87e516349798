import { PermanentJobError } from '@conveyor/core';
import { fetch, RequestInit, Response } from 'undici';
import { fetchFailureReason } from './fetch-failure-reason';
import { privateAddressRefusal, publicNetworkDispatcher } from './public-network-dispatcher';

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
  /** ALLOW_PRIVATE_NETWORKS: without it only public addresses are connected to (see publicNetworkDispatcher). */
  allowPrivateNetworks: boolean;
}

/**
 * `fetch` bounded by the job's AbortSignal and a per-request timeout, failing with one readable line:
 * "`target` got no answer within N ms" or "`target` failed: connect ECONNREFUSED ...". Redirects are
 * the caller's choice (`init.redirect`). A host that is not public, while private networks are not
 * allowed, is a PermanentJobError: the address will not become allowed by retrying.
 */
export async function fetchWithin(url: string | URL, init: RequestInit, options: FetchWithinOptions): Promise<Response> {
  const { signal, timeoutMs, target, error: FailureError, allowPrivateNetworks } = options;
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    const dispatcher = publicNetworkDispatcher(allowPrivateNetworks);
    return await fetch(url, { ...init, signal: AbortSignal.any([signal, deadline]), ...(dispatcher && { dispatcher }) });
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    const refusal = privateAddressRefusal(err);
    if (refusal) {
      throw new PermanentJobError(`${target} refused: ${refusal.message}; ALLOW_PRIVATE_NETWORKS=true allows private networks`);
    }
    if (deadline.aborted) throw new FailureError(`${target} got no answer within ${timeoutMs} ms`, { cause: err });
    throw new FailureError(`${target} failed: ${fetchFailureReason(err)}`, { cause: err });
  }
}
