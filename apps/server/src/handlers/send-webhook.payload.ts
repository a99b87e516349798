import { IsObject, IsOptional, IsUrl, MaxLength, registerDecorator, ValidationOptions } from 'class-validator';

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * An HTTP header value as fetch can send it: one line of Latin-1 text. CR or LF would split the header
 * (header injection); fetch refuses characters past U+00FF at run time, which would only fail every attempt.
 */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/**
 * Headers the HTTP client sets itself from the URL and body. fetch refuses several of them at run
 * time, and a wrong Content-Length or Host breaks the request: caught at submission instead.
 */
const CLIENT_HEADERS = [
  'connection',
  'content-length',
  'expect',
  'host',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

function headerRule(name: string, message: string, validate: (value: object) => boolean, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message, ...options },
      validator: { validate: (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value) && validate(value) },
    });
}

/** Every key is a header name and every value a single-line Latin-1 string. */
function IsHeaderRecord(options?: ValidationOptions): PropertyDecorator {
  return headerRule(
    'isHeaderRecord',
    '$property must map header names to single-line string values (no CR, LF or NUL; Latin-1 only)',
    (value) => Object.entries(value).every(([k, v]) => HEADER_NAME.test(k) && typeof v === 'string' && HEADER_VALUE.test(v)),
    options,
  );
}

/** No header the HTTP client sets itself. */
function HasNoClientHeaders(options?: ValidationOptions): PropertyDecorator {
  return headerRule(
    'hasNoClientHeaders',
    `$property must not set ${CLIENT_HEADERS.join(', ')} (the HTTP client sets them)`,
    (value) => Object.keys(value).every((k) => !CLIENT_HEADERS.includes(k.toLowerCase())),
    options,
  );
}

/** Payload of SEND_WEBHOOK. */
export class SendWebhookPayload {
  /** http or https only; no user:password part, which fetch refuses (and would echo into the error). */
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true, disallow_auth: true })
  @MaxLength(2048)
  url: string;

  /** Sent as JSON; any JSON value. */
  @IsOptional()
  body?: unknown;

  /** Extra request headers; one named like a default (Content-Type, Idempotency-Key, in any case) replaces it. */
  @IsOptional()
  @IsObject()
  @IsHeaderRecord()
  @HasNoClientHeaders()
  headers?: Record<string, string>;
}
