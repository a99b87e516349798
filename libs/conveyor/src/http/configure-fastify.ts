import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { HttpException, INestApplication } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import { ErrorBody } from './error-body';
import { HELMET_OPTIONS } from './helmet-options';
import { JSON_BODY_ERRORS } from './json-body.errors';

/** Media types read as JSON, as on Express: `application/json` and any `application/*+json`. */
const JSON_TYPES: Array<string | RegExp> = ['application/json', /^application\/[\w.-]+\+json$/i];

/** Parameter of a Content-Type header naming its charset. */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/**
 * configureHttp on Fastify. Helmet runs as an `onRequest` hook on the raw request and response (its headers
 * are merged into whatever the reply writes), and the JSON body parser replaces Fastify's own one, so the
 * limit, the UTF-8 check and the answers match Express's exactly. A body error fails the request with an
 * HttpException whose response is the API's error body: Nest's handler for errors before a route sends it
 * as is, on the host's routes too, as the Express body parser's answers are.
 *
 * Left to Fastify, in its own JSON shape: what fails before a request reaches the hooks — a URL path that is
 * not valid percent-encoding (400) and what Node's HTTP parser refuses (431, 408, 400) — since Fastify answers
 * those through options fixed when the host creates its adapter (`frameworkErrors`, `clientErrorHandler`).
 */
export function configureFastify(app: INestApplication, bodyLimitBytes: number): void {
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  const secure = helmet(HELMET_OPTIONS);
  fastify.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    secure(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
  });
  fastify.removeContentTypeParser(['application/json']);
  for (const type of JSON_TYPES) {
    fastify.addContentTypeParser(type, (req: FastifyRequest, payload: IncomingMessage, done: (err: Error | null, body?: unknown) => void) => {
      readJson(payload, req.headers['content-type'] ?? '', bodyLimitBytes).then(
        (body) => done(null, body),
        (err: Error) => done(err),
      );
    });
  }
}

/**
 * Reads and parses a JSON body, as body-parser's `json({ strict: false })` does: an empty body is `{}`, a body
 * in UTF-8 (JSON's default charset) must be valid UTF-8 — decoding would turn every invalid byte into U+FFFD,
 * and a job would store text its client never sent — and reading stops as soon as the body passes the limit.
 */
async function readJson(stream: IncomingMessage, contentType: string, limitBytes: number): Promise<unknown> {
  const charset = (CHARSET.exec(contentType)?.[1] ?? 'utf-8').toLowerCase();
  if (charset !== 'utf-8' && charset !== 'utf8') throw bodyError(JSON_BODY_ERRORS.unsupportedCharset(charset));
  const declared = Number(stream.headers['content-length']);
  if (declared > limitBytes) throw bodyError(JSON_BODY_ERRORS.tooLarge(limitBytes));
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw bodyError(JSON_BODY_ERRORS.tooLarge(limitBytes));
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  if (body.length === 0) return {};
  if (!isUtf8(body)) throw bodyError(JSON_BODY_ERRORS.invalidUtf8());
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw bodyError(JSON_BODY_ERRORS.malformed());
  }
}

function bodyError(body: ErrorBody): HttpException {
  return new HttpException(body, body.statusCode);
}
