import { ConveyorHttpError } from '../conveyor-http.error';
import { retryDelayOf } from '../transient-failure';

/** Ceiling of the pause after the first failed claim; it doubles with each failure in a row, up to a cap. */
const FIRST_CEILING_MS = 400;
/**
 * Cap while the service is away — no connection, no answer in time, or a proxy's 502/503/504 for a service that is
 * restarting. It is the default idle poll's longest wait (`idleBackoff.maxMs`): a worker notices a service that is
 * back as soon as it would notice a new job, and asks a service that is down at most twice as often as an idle worker
 * asks one that is up.
 */
export const UNREACHABLE_MAX_BACKOFF_MS = 5_000;
/**
 * Cap for a service that answers, with a 500 or a 429 that gave no Retry-After: a fault of the service's own, or too
 * many requests, which asking sooner repeats or adds to.
 */
export const FAULT_MAX_BACKOFF_MS = 30_000;

/** Answers that mean "no service behind me right now", from the service or a proxy in front of it. */
const UNAVAILABLE_STATUSES = new Set([502, 503, 504]);

/**
 * How long runWorker pauses after its `failures`-th failed claim in a row (from 1): a random pause between half its
 * ceiling and the ceiling ("equal jitter"), where the ceiling doubles per failure (400 ms, 800 ms, …) up to its cap;
 * when the server sent a Retry-After, that is the least pause and the ceiling is half as long again. The randomness
 * spreads workers that lost the service at the same moment — or were all told the same Retry-After — so they do not
 * return to it in step; the cap bounds how long a worker may sleep through the service's return; once the ceiling
 * reaches the cap, the lower half bounds how often each worker asks a service that is away (once per half the cap).
 */
export function claimRetryDelay(err: unknown, failures: number, random: () => number = Math.random): number {
  // A Retry-After of 0 would make a tight loop of claims: it is held to the first pause's least.
  const retryAfter = retryDelayOf(err, -1);
  if (retryAfter >= 0) {
    const least = Math.max(retryAfter, FIRST_CEILING_MS / 2);
    return Math.floor(least + random() * (least / 2));
  }
  const cap = isServiceAway(err) ? UNREACHABLE_MAX_BACKOFF_MS : FAULT_MAX_BACKOFF_MS;
  const ceiling = Math.min(cap, FIRST_CEILING_MS * 2 ** Math.min(failures - 1, 30));
  return Math.floor(ceiling / 2 + random() * (ceiling / 2));
}

/** Any transient failure but a 500-class fault of the service's own or a 429: those answers come from a live service. */
function isServiceAway(err: unknown): boolean {
  return !(err instanceof ConveyorHttpError) || UNAVAILABLE_STATUSES.has(err.status);
}
