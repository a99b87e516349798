import { thrownMessage } from '../errors/thrown-text';

/** Deepest nesting a payload may have; deeper input is refused rather than risking PostgreSQL's stack limit. */
export const MAX_JSON_DEPTH = 64;

/**
 * Finds the first part of a JSON value PostgreSQL's jsonb cannot store as given (a NUL character, a lone
 * UTF-16 surrogate, nesting past MAX_JSON_DEPTH, a non-finite number), and returns its path and problem.
 */
export function findUnstorableJson(value: unknown, path = 'payload', depth = 0): { field: string; problem: string } | null {
  if (depth > MAX_JSON_DEPTH) return { field: path, problem: `is nested deeper than ${MAX_JSON_DEPTH} levels` };
  if (typeof value === 'string') return badString(value) ? { field: path, problem: badString(value)! } : null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : { field: path, problem: 'must be a finite number' };
  if (value === null || typeof value === 'boolean') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableJson(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  if (typeof value === 'object') {
    for (const key of Object.keys(value as object)) {
      const problem = badString(key);
      if (problem) return { field: `${path}.${key.split('\u0000').join('\\u0000')}`, problem: `key ${problem}` };
      const found = findUnstorableJson((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  return { field: path, problem: `has a value of type ${typeof value}, which JSON cannot hold` };
}

/** A UTF-16 surrogate without its pair: no UTF-8 encodes it, so pg sends U+FFFD in its place. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Whether `s` holds a lone surrogate, which PostgreSQL would get (and store, or match) as U+FFFD. */
export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s);
}

/** `s` with every lone surrogate replaced by U+FFFD, as PostgreSQL would get it anyway. */
export function replaceLoneSurrogates(s: string): string {
  return s.replace(LONE_SURROGATES, '\uFFFD');
}

function badString(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character (\\u0000), which PostgreSQL cannot store';
  if (hasLoneSurrogate(s)) {
    return 'contains an unpaired UTF-16 surrogate';
  }
  return null;
}

/** Serialises a handler's result for storage, or says why it cannot be stored. */
export function toStorableResult(value: unknown): { ok: true; value: unknown } | { ok: false; problem: string } {
  // Most handlers return nothing (or null): no need to round-trip that through JSON.
  if (value === undefined || value === null) return { ok: true, value: null };
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    return { ok: false, problem: `result is not JSON-serialisable: ${thrownMessage(err)}` };
  }
  if (text === undefined) return { ok: true, value: null };
  const parsed = JSON.parse(text) as unknown;
  const bad = findUnstorableJson(parsed, 'result');
  return bad ? { ok: false, problem: `${bad.field} ${bad.problem}` } : { ok: true, value: parsed };
}
