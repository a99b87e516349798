/**
 * A request got no answer: the connection was refused, reset or cut, the host not found, or the answer broke off
 * before its end. `cause` is the fetch implementation's own error. Sending again may succeed, unlike a request fetch
 * refused to send at all (an invalid header value, say), which is thrown as fetch threw it.
 */
export class ConveyorNetworkError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    cause: unknown,
  ) {
    super(`${method} ${path} got no answer: ${describeCause(cause)}`, { cause });
    this.name = 'ConveyorNetworkError';
  }
}

/** fetch's message and, where it has one, the socket's ("fetch failed: connect ECONNREFUSED 127.0.0.1:3000"). */
function describeCause(cause: unknown): string {
  const message = (cause as { message?: unknown } | null)?.message;
  const inner = ((cause as { cause?: { message?: unknown } } | null)?.cause as { message?: unknown } | undefined)?.message;
  return [message, inner].filter((m): m is string => typeof m === 'string' && m.length > 0).join(': ') || String(cause);
}

/** Socket and DNS errors a request without an answer ends in (Node's codes, and undici's for a socket it lost). */
const NO_ANSWER_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * Whether fetch failed for want of an answer: the error, or the one it wraps as `cause` (Node's fetch gives the
 * socket's there), carries a socket or DNS code. A request fetch refuses to send (a bad header value, a bad port),
 * a TLS or protocol mismatch and a body that does not decode carry none of them: sending again would fail alike.
 */
export function isNoAnswer(err: unknown): boolean {
  const code = (e: unknown) => (e as { code?: unknown } | null)?.code;
  return NO_ANSWER_CODES.has(code(err) as string) || NO_ANSWER_CODES.has(code((err as { cause?: unknown } | null)?.cause) as string);
}
