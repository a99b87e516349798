import { BackoffOptions } from '../config/backoff-options.interface';

/**
 * Delay before retry number `attempt` (1 after the first failure): exponential, capped, with a `jitter`
 * fraction drawn at random so that jobs failing together do not retry together.
 */
export function retryDelayMs(attempt: number, b: BackoffOptions, random: () => number = Math.random): number {
  const exp = b.baseMs * Math.pow(b.factor, Math.max(0, attempt - 1));
  const capped = Math.min(b.maxMs, exp);
  const fixed = capped * (1 - b.jitter);
  return Math.round(fixed + capped * b.jitter * random());
}
