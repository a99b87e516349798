/**
 * Compile-time checks for the type tests in this folder: `npm run typecheck` fails where an `Expect` does not
 * hold. Nothing here runs.
 */

/**
 * True only when A and B are the same type — not merely assignable one way or both (a field optional on one
 * side and required on the other, or present on one side only, makes it false).
 */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when T is `true`. */
export type Expect<T extends true> = T;

/** A value as it crosses the wire as JSON: dates become ISO strings, recursively. */
export type Wire<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;
