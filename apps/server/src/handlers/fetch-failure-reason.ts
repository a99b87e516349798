/**
 * Why a `fetch` call failed, in one line. Node's fetch rejects with a bare "TypeError: fetch failed"
 * and keeps the reason (`connect ECONNREFUSED 127.0.0.1:8080`, `getaddrinfo ENOTFOUND ...`) in
 * `cause`, which the job's last_error would otherwise lose. A connection tried on several addresses
 * fails with an AggregateError whose own message may be empty.
 */
export function fetchFailureReason(err: unknown): string {
  const reasons: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    reasons.push(describeOne(current));
    current = (current as { cause?: unknown }).cause;
  }
  // The outermost "fetch failed" says nothing once a cause is known.
  const useful = reasons.length > 1 && reasons[0] === 'TypeError: fetch failed' ? reasons.slice(1) : reasons;
  return useful.filter(Boolean).join(': ');
}

/** Duck-typed, not `instanceof Error`: errors made by Node's internals may come from another realm (a vm, a test runner). */
function describeOne(err: unknown): string {
  if (err === null || typeof err !== 'object' || typeof (err as Error).message !== 'string') return String(err);
  const { name, code, errors } = err as { name?: unknown; code?: unknown; errors?: unknown };
  let message = (err as Error).message;
  if (!message && Array.isArray(errors)) {
    message = errors.map((e: unknown) => (e && typeof (e as Error).message === 'string' ? (e as Error).message : String(e))).join('; ');
  }
  if (typeof code === 'string' && !message.includes(code)) message = message ? `${code} ${message}` : code;
  return typeof name !== 'string' || name === 'Error' ? message : `${name}: ${message}`;
}
