/**
 * Exponential backoff with jitter: attempt n waits
 * `min(maxMs, baseMs * factor^(n-1))`, of which a `jitter` fraction is random.
 */
export interface BackoffOptions {
  baseMs: number;
  factor: number;
  maxMs: number;
  /** 0 = no jitter, 1 = "full jitter". Default 0.5 ("equal jitter"). */
  jitter: number;
}
