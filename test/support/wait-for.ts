import { WaitForTimeoutError } from './wait-for-timeout.error';

/** Options for {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long. Defaults to 10 000 ms. */
  timeoutMs?: number;
  /** Pause between probes. Defaults to 25 ms. */
  intervalMs?: number;
  /** What is awaited, for the timeout error ("job 42 to be completed"). */
  message?: string;
}

/** A falsy "not yet" answer of a probe. */
type NotYet = undefined | false | null;

/**
 * Polls `probe` until it returns (or resolves to) a truthy value, and returns that value — how
 * tests await asynchronous effects instead of sleeping a fixed time. A probe that throws counts as
 * "not yet"; if time runs out, the last such error is the timeout error's `cause`. A probe that
 * hangs does not hold the deadline up.
 */
export async function waitFor<T>(
  probe: () => Promise<T | NotYet> | T | NotYet,
  { timeoutMs = 10_000, intervalMs = 25, message = 'a condition to hold' }: WaitForOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await beforeDeadline(Promise.resolve().then(probe), deadline);
      if (value) return value;
    } catch (error) {
      if (error !== DEADLINE) lastError = error;
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new WaitForTimeoutError(message, timeoutMs, { cause: lastError });
    await delay(Math.min(intervalMs, remaining));
  }
}

const DEADLINE = Symbol('deadline');

function beforeDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(DEADLINE), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
