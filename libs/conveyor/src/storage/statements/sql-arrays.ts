/**
 * Array parameters built here rather than by pg's general array serialiser, which was the largest allocation
 * of a drain on the Node side: literals of values that never need quoting, and uuid arrays in binary.
 */

/** An array literal of values that never need quoting (status names). */
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

/** PostgreSQL's type oid of uuid, which a binary uuid[] names as its element type. */
const UUID_OID = 2950;

/**
 * A `uuid[]` parameter in PostgreSQL's binary format. pg sends a Buffer as a binary parameter, which the server
 * copies 16 bytes per element, instead of parsing a text literal character by character (array_in, uuid_in),
 * which the completer's batches and heartbeats would pay on every id. Throws on anything but a
 * hyphenated uuid, so a bad id fails the statement instead of becoming another id.
 */
export function uuidArray(values: string[]): Buffer {
  // Header: dimensions (0 for an empty array, as PostgreSQL writes it), no nulls, element type; then the
  // length and lower bound of the one dimension, and each element as its length (16) and bytes.
  const out = Buffer.allocUnsafe(values.length === 0 ? 12 : 20 + values.length * 20);
  out.writeInt32BE(values.length === 0 ? 0 : 1, 0);
  out.writeInt32BE(0, 4);
  out.writeInt32BE(UUID_OID, 8);
  if (values.length === 0) return out;
  out.writeInt32BE(values.length, 12);
  out.writeInt32BE(1, 16);
  let at = 20;
  for (const value of values) {
    out.writeInt32BE(16, at);
    writeUuid(value, out, at + 4);
    at += 20;
  }
  return out;
}

/** Value of each hex digit by character code (Latin-1 range); -1 for anything else. */
const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** Where each of a uuid's 16 bytes starts in its text (8-4-4-4-12 hex digits, hyphens between). */
const BYTE_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/** Writes the 16 bytes of a uuid's text form at `at`; throws on anything else. */
function writeUuid(text: string, out: Buffer, at: number): void {
  let bad =
    text.length !== 36 ||
    text.charCodeAt(8) !== 45 ||
    text.charCodeAt(13) !== 45 ||
    text.charCodeAt(18) !== 45 ||
    text.charCodeAt(23) !== 45;
  for (let b = 0; b < 16 && !bad; b++) {
    const high = hexDigit(text.charCodeAt(BYTE_AT[b]));
    const low = hexDigit(text.charCodeAt(BYTE_AT[b] + 1));
    bad = (high | low) < 0;
    out[at + b] = (high << 4) | low;
  }
  if (bad) throw new TypeError(`Not a uuid: ${JSON.stringify(text)}`);
}

function hexDigit(code: number): number {
  return code < 256 ? HEX[code] : -1;
}
