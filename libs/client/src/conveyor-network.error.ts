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

/**
 * Whether fetch failed for want of an answer: Node's fetch (undici) gives such errors the socket's error as `cause`,
 * while a request it refuses to send (a bad header, a body on a GET) has none.
 */
export function isNoAnswer(err: unknown): boolean {
  return (err as { cause?: unknown } | null)?.cause !== undefined;
}
