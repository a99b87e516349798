import type { IncomingHttpHeaders } from 'node:http';
import { ErrorBody } from '../errors/error-body';
import { JSON_BODY_ERRORS } from '../errors/json-body.errors';

/** Media types Conveyor reads as JSON: `application/json` and any `application/*+json`. */
const JSON_MEDIA_TYPE = /^application\/(?:json|[\w.-]+\+json)$/i;

/** Parameter of a Content-Type header naming its charset. */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/** Content encodings Conveyor inflates; the same list on every platform. */
export const CONTENT_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'] as const;
export type ContentEncoding = (typeof CONTENT_ENCODINGS)[number];

/** The media type of a Content-Type header, without its parameters; undefined without one. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';', 1)[0].trim();
  return type ? type : undefined;
}

/** Whether the request carries a body: chunked, or a Content-Length other than 0. */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/** The request's content encoding, lower-case; `identity` without one. */
export function contentEncodingOf(headers: IncomingHttpHeaders): string {
  return (headers['content-encoding'] ?? 'identity').trim().toLowerCase();
}

/**
 * What Conveyor's routes refuse from the headers alone, before reading a byte of the body: every body they take
 * is JSON in UTF-8 (JSON's own charset), plain or compressed. A form or text body would otherwise reach the
 * controller as nothing (Express) or as a string (Fastify) and be refused for its missing fields, not its type.
 */
export function refuseBodyHeaders(headers: IncomingHttpHeaders): ErrorBody | undefined {
  if (!hasBody(headers)) return undefined;
  const contentType = headers['content-type'];
  if (!JSON_MEDIA_TYPE.test(mediaTypeOf(contentType) ?? '')) return JSON_BODY_ERRORS.unsupportedMediaType(mediaTypeOf(contentType));
  const charset = (CHARSET.exec(contentType ?? '')?.[1] ?? 'utf-8').toLowerCase();
  if (charset !== 'utf-8' && charset !== 'utf8') return JSON_BODY_ERRORS.unsupportedCharset(charset);
  const encoding = contentEncodingOf(headers);
  if (!(CONTENT_ENCODINGS as readonly string[]).includes(encoding)) return JSON_BODY_ERRORS.unsupportedEncoding(encoding);
  return undefined;
}
