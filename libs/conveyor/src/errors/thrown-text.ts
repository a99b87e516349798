/** Stands for a part of a thrown value that cannot be read as text. */
const UNREADABLE = '(unreadable)';

/*
 * Anything may be thrown, and reading a name, message or stack, or making text of a value, runs code of the value's own
 * (getters, proxy traps, `toJSON`, `toString`), which may throw as well, even the value itself. Nothing here throws:
 * what cannot be read is left out or stands as UNREADABLE.
 */

/** What a handler threw, as text: "Name: message" for an Error, "Non-error thrown: …" for anything else. */
export function thrownText(err: unknown): string {
  if (isError(err)) return `${readable(() => err.name) ?? 'Error'}: ${readable(() => err.message) ?? UNREADABLE}`;
  return `Non-error thrown: ${readable(() => JSON.stringify(err)) ?? readable(() => String(err)) ?? UNREADABLE}`;
}

/** An Error's message alone, or `thrownText` for anything else. */
export function thrownMessage(err: unknown): string {
  return isError(err) ? (readable(() => err.message) ?? UNREADABLE) : thrownText(err);
}

/** An Error's stack when it is text (it may be set to anything), else undefined. */
export function thrownStack(err: unknown): string | undefined {
  if (!isError(err)) return undefined;
  try {
    return typeof err.stack === 'string' && err.stack ? err.stack : undefined;
  } catch {
    return undefined;
  }
}

/** `err instanceof type`, false where asking runs code that throws (a proxy's getPrototypeOf trap, a revoked proxy). */
export function isThrownInstance<T>(err: unknown, type: abstract new (...args: never[]) => T): err is T {
  try {
    return err instanceof type;
  } catch {
    return false;
  }
}

function isError(err: unknown): err is Error {
  return isThrownInstance(err, Error);
}

function readable(read: () => unknown): string | undefined {
  try {
    return String(read());
  } catch {
    return undefined;
  }
}
