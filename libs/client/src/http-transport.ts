import { ConveyorClientOptions } from './conveyor-client-options.interface';
import { ConveyorHttpError } from './conveyor-http.error';
import { ConveyorNetworkError, isNoAnswer } from './conveyor-network.error';
import { ErrorBody } from './job.types';

const DEFAULT_TIMEOUT_MS = 30_000;

/** One request's particulars. */
export interface TransportRequest {
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
}

/**
 * JSON over `fetch`: adds the API key and a timeout, sends bodies as JSON, and turns every non-2xx answer
 * into a ConveyorHttpError carrying the server's error body, and a request that got no answer into a
 * ConveyorNetworkError.
 */
export class HttpTransport {
  private readonly baseUrl: string;

  constructor(private readonly options: ConveyorClientOptions) {
    if (!/^https?:\/\//.test(options.baseUrl)) throw new TypeError(`baseUrl must be an http(s) URL, got "${options.baseUrl}"`);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async request<T>(method: string, path: string, req: TransportRequest = {}): Promise<T> {
    const url = new URL(this.baseUrl + path);
    for (const [key, value] of Object.entries(req.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...req.headers };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;

    const { res, text } = await withoutAnswer(method, path, signal, async () => {
      const answer = await (this.options.fetch ?? fetch)(url, {
        method,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        signal,
      });
      return { res: answer, text: await answer.text() };
    });
    if (!res.ok) throw new ConveyorHttpError(res.status, parseErrorBody(text), method, path, retryAfterMs(res.headers.get('retry-after')));
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** An event stream of `path` (see openEventStream). */
  stream(path: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    return openEventStream(this.options, this.baseUrl, path, signal);
  }
}

/**
 * Opens an event stream (`Accept: text/event-stream`) with the API key; no timeout of its own, so it lasts until
 * `signal` aborts or the server ends it. A non-2xx answer is a ConveyorHttpError, as for `request`.
 */
export async function openEventStream(
  options: ConveyorClientOptions,
  baseUrl: string,
  path: string,
  signal: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const res = await (options.fetch ?? fetch)(new URL(baseUrl + path), { method: 'GET', headers, signal });
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '');
    throw new ConveyorHttpError(res.status, parseErrorBody(text), 'GET', path, retryAfterMs(res.headers.get('retry-after')));
  }
  return res.body;
}

/** The server's error body, or null when the answer was not one (a proxy's HTML page, say). */
function parseErrorBody(text: string): ErrorBody | null {
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    return typeof body?.statusCode === 'number' && typeof body.message === 'string' ? (body as ErrorBody) : null;
  } catch {
    return null;
  }
}

/** Retry-After in seconds or as an HTTP date, in ms from now. */
function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/**
 * Runs `send` (a fetch and the reading of its answer), turning a failure for want of an answer into a
 * ConveyorNetworkError; an abort (the caller's signal, the timeout) and a request fetch refused to send pass as they are.
 */
async function withoutAnswer<T>(method: string, path: string, signal: AbortSignal, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (signal.aborted || !isNoAnswer(err)) throw err;
    throw new ConveyorNetworkError(method, path, err);
  }
}
