import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { ErrorBody } from '../errors/error-body';
import { JSON_BODY_ERRORS } from '../errors/json-body.errors';
import { contentEncodingOf } from './json-media-type';

export type ParsedBody = { ok: true; value: unknown } | { ok: false; error: ErrorBody };

const INFLATE = { gzip: gunzipSync, deflate: inflateSync, br: brotliDecompressSync } as const;

/**
 * A body Fastify has read (within Conveyor's limit) parsed as body-parser's `json({ strict: false })` parses it
 * on Express, with the same answers: inflated by its Content-Encoding with the limit applying to the inflated
 * size, `{}` when empty, refused when it is not valid UTF-8 (decoding would turn each invalid byte into U+FFFD,
 * and a job would store text its client never sent) or not JSON. The headers were checked before reading
 * (refuseBodyHeaders), so the encoding is one of those known here.
 */
export function parseJsonBody(raw: Buffer, headers: IncomingHttpHeaders, limitBytes: number): ParsedBody {
  const encoding = contentEncodingOf(headers);
  let body = raw;
  if (encoding !== 'identity') {
    try {
      body = INFLATE[encoding as keyof typeof INFLATE](raw, { maxOutputLength: limitBytes });
    } catch (err) {
      const tooLarge = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
      return { ok: false, error: tooLarge ? JSON_BODY_ERRORS.tooLarge(limitBytes) : JSON_BODY_ERRORS.undecodable(encoding) };
    }
  }
  if (body.length === 0) return { ok: true, value: {} };
  if (!isUtf8(body)) return { ok: false, error: JSON_BODY_ERRORS.invalidUtf8() };
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    return { ok: false, error: JSON_BODY_ERRORS.malformed() };
  }
}
