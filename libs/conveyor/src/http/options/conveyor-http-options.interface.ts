import { ApiRole } from './api-role';

/** One API key and the role it grants. Several keys may share a role (rotation, one per client). */
export interface ApiKeyOption {
  role: ApiRole;
  key: string;
}

/** A fixed-window request limit per API key, or per client IP for requests without a valid key. */
export interface RateLimitOptions {
  /** Length of one window, in milliseconds. */
  windowMs: number;
  /** Requests one caller may make per window; the next one is a 429. */
  max: number;
  /** Most callers tracked at once; past it the oldest window is forgotten, so memory stays bounded. */
  maxTracked?: number;
}

/** Bounds of each live-event stream (`GET /events`, `GET /jobs/:id/events`). */
export interface LiveStreamOptions {
  /**
   * Most bytes a stream may hold unsent: a reader further behind than this for 2 s (or four times this at any
   * moment) is dropped.
   */
  maxBufferBytes?: number;
  /** How often an idle stream sends a `: ping` comment, so proxies keep it open. */
  pingIntervalMs?: number;
}

/** What `ConveyorHttpModule.forRoot(...)` accepts. */
export interface ConveyorHttpOptions {
  /** API keys; none means no authentication (dev mode, logged as a warning at start-up). */
  apiKeys?: ApiKeyOption[];
  /** Request limit; a generous default when omitted, `false` for none. */
  rateLimit?: RateLimitOptions | false;
  /** Bounds of live-event streams; defaults when omitted. */
  live?: LiveStreamOptions;
}

/** The validated, defaulted options the HTTP layer runs with. */
export interface ConveyorHttpSettings {
  apiKeys: ApiKeyOption[];
  rateLimit: Required<RateLimitOptions> | null;
  live: Required<LiveStreamOptions>;
}
