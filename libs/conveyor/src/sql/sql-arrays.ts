/**
 * Array parameters built as literals. pg's general array serialiser was the largest allocation of a drain on
 * the Node side; the values these carry (uuids, status names) never need quoting.
 */

/** An array literal of values that never need quoting (uuids, status names). */
export function plainArray(values: string[]): string {
  return `{${values.join(',')}}`;
}

/** `{}` when every value is null (unnest pads it to the other arrays' length), else the values for pg to serialise. */
export function sparseArray<T>(values: (T | null)[]): (T | null)[] | string {
  for (const v of values) if (v !== null) return values;
  return '{}';
}

/** A value as the text of a jsonb parameter; null (SQL NULL) when there is none. */
export function jsonOrNull(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}
