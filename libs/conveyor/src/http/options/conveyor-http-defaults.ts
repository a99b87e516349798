import { LiveStreamOptions, RateLimitOptions } from './conveyor-http-options.interface';

/**
 * The one place the HTTP layer's defaults live. The rate limit is generous on purpose: it is there to
 * blunt floods and runaway clients, not to shape normal traffic (or slow down test suites).
 */
export function conveyorHttpDefaults(): { rateLimit: Required<RateLimitOptions>; live: Required<LiveStreamOptions> } {
  return {
    rateLimit: { windowMs: 60_000, max: 6_000, maxTracked: 10_000 },
    live: { maxBufferBytes: 1024 * 1024, pingIntervalMs: 15_000 },
  };
}
