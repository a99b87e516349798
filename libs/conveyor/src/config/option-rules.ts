import { ConveyorConfigError } from '../errors/conveyor-config.error';
import { BackoffOptions } from './backoff-options.interface';

/**
 * The rules shared by the engine's options and a handler's own (`@JobHandler`), which stand in for them for one job
 * type: a decorator cannot bring in a value the engine's options refuse. `OptionError` is the error that names the
 * bad field: ConveyorConfigError for the engine's options, JobHandlerOptionsError for a handler's.
 */
export type OptionError = new (field: string, problem: string) => ConveyorConfigError;

/** Every field of `backoff`; the compiler checks the list against BackoffOptions, both ways. */
const BACKOFF_NAMES: ReadonlySet<string> = new Set(
  Object.keys({ baseMs: true, factor: true, maxMs: true, jitter: true } satisfies Record<keyof BackoffOptions, true>),
);

export function integer(
  field: string,
  value: unknown,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  OptionError: OptionError = ConveyorConfigError,
): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new OptionError(field, `must be an integer between ${min} and ${max}, got ${String(value)}`);
  }
}

/** How many attempts may run at once: in the process, in one queue, of one type. */
export function checkConcurrency(field: string, value: unknown, OptionError: OptionError = ConveyorConfigError): void {
  integer(field, value, 1, 10_000, OptionError);
}

/** Attempts before a job is DEAD: at least one (the table's check), at most what a submission may ask for. */
export function checkMaxAttempts(field: string, value: unknown, OptionError: OptionError = ConveyorConfigError): void {
  integer(field, value, 1, 1000, OptionError);
}

/**
 * How long an attempt may run. A day at most, well inside what a Node timer can wait (2^31 - 1 ms): a longer delay
 * is not waited at all but fires after 1 ms.
 */
export function checkTimeoutMs(field: string, value: unknown, OptionError: OptionError = ConveyorConfigError): void {
  integer(field, value, 1, 86_400_000, OptionError);
}

/** The fields given a value: one set to undefined takes its default, as one left out does. */
export function definedFields(input: object): object {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

/**
 * A partial backoff given as an option, over `base`. Refuses what is no object and a key that is no field of backoff,
 * which would otherwise be ignored; the values are checked by `checkBackoff`.
 */
export function readBackoff(
  input: unknown,
  base: BackoffOptions,
  field: string,
  OptionError: OptionError = ConveyorConfigError,
): BackoffOptions {
  if (input === undefined) return { ...base };
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new OptionError(field, 'must be an object such as { baseMs: 1000, factor: 2 }');
  }
  for (const key of Object.keys(input)) {
    if (!BACKOFF_NAMES.has(key)) throw new OptionError(`${field}.${key}`, 'is not a field of backoff (baseMs, factor, maxMs, jitter)');
  }
  return { ...base, ...definedFields(input) };
}

export function checkBackoff(backoff: BackoffOptions, field: string, OptionError: OptionError = ConveyorConfigError): void {
  integer(`${field}.baseMs`, backoff.baseMs, 0, 86_400_000, OptionError);
  integer(`${field}.maxMs`, backoff.maxMs, 0, 30 * 86_400_000, OptionError);
  if (typeof backoff.factor !== 'number' || !(backoff.factor >= 1) || backoff.factor > 100) {
    throw new OptionError(`${field}.factor`, 'must be a number between 1 and 100');
  }
  if (typeof backoff.jitter !== 'number' || !(backoff.jitter >= 0 && backoff.jitter <= 1)) {
    throw new OptionError(`${field}.jitter`, 'must be a number between 0 and 1');
  }
}
