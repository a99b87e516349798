/** How a ConveyorClient reaches the server. */
export interface ConveyorClientOptions {
  /** The service's base URL, e.g. `http://conveyor:3000`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when the server has API keys configured. */
  apiKey?: string | undefined;
  /** Longest a request may take (default 30 000 ms). */
  timeoutMs?: number | undefined;
  /** Extra headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /** The fetch implementation (default: the global `fetch`). */
  fetch?: typeof fetch | undefined;
}
