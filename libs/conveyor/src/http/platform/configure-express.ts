import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { answerClientErrors } from '../errors/client-error.responder';
import { ConveyorRouteMatcher } from './conveyor-route-matcher';
import { errorBody, ErrorBody } from '../errors/error-body';
import { HELMET_OPTIONS } from './helmet-options';
import { JSON_BODY_ERRORS } from '../errors/json-body.errors';
import { contentEncodingOf, refuseBodyHeaders } from './json-media-type';
import { refuseMalformedPaths } from './refuse-malformed-paths';
import { sendErrorBody } from '../errors/send-error-body';

/** body-parser's `type` of the error {@link refuseInvalidUtf8} throws. */
const INVALID_UTF8 = 'entity.utf8.invalid';

/**
 * configureHttp on Express. One middleware, registered before Nest adds its own body parsers at `init()`, that
 * steps aside for every path that is not one of Conveyor's routes. On Conveyor's: helmet first, so every answer
 * carries its headers, a 413 included; then what the headers alone refuse (a body that is not JSON, in UTF-8,
 * plainly or gzip/deflate/br-encoded); then the JSON body parser with Conveyor's limit, whose errors are answered
 * here in the API's shape. Having read the body, it leaves Nest's own JSON parser (if the host kept
 * `bodyParser` on) nothing to do, so the limit is Conveyor's on its routes and the host's on the host's.
 */
export function configureExpress(app: INestApplication, bodyLimitBytes: number): void {
  const routes = new ConveyorRouteMatcher(app);
  const secure = helmet(HELMET_OPTIONS);
  answerClientErrors(app.getHttpServer());
  refuseMalformedPaths(app.getHttpServer(), routes, secure);
  const parseJson = jsonParser(bodyLimitBytes);
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!routes.matches(req.originalUrl)) return next();
    secure(req, res, (err?: unknown) => {
      if (err) return next(err);
      const refused = refuseBodyHeaders(req.headers);
      if (refused) return sendErrorBody(res, refused);
      parseJson(req, res, (parseErr?: unknown) => {
        if (parseErr) return sendErrorBody(res, toErrorBody(parseErr as BodyParserError, req, bodyLimitBytes));
        markBodyRead(req);
        next();
      });
    });
  });
}

/**
 * Marks the body as read the way body-parser 1 does, which Express 5's body-parser 2 no longer does: a parser of
 * body-parser 1 after ours (Nest's own with @nestjs/platform-express 11.0.0 and 11.0.1, or a host's
 * `app.use(bodyParser.json())`) skips a request so marked, and would otherwise read the consumed stream again and
 * fail the request with 500 `stream is not readable`.
 */
function markBodyRead(req: Request): void {
  (req as Request & { _body?: boolean })._body = true;
}

/** Loaded here, not imported: a Fastify host need not install Express (body-parser comes with it). */
function jsonParser(limit: number): RequestHandler {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { json } = require('express') as typeof import('express');
  return json({ limit, strict: false, type: () => true, verify: refuseInvalidUtf8 });
}

interface BodyParserError {
  type?: string;
  status?: number;
  message?: string;
}

/** A body-parser error in the API's shape, with the same status and wording as on Fastify. */
function toErrorBody(err: BodyParserError, req: Request, limitBytes: number): ErrorBody {
  switch (err.type) {
    case 'entity.too.large':
      return JSON_BODY_ERRORS.tooLarge(limitBytes);
    case INVALID_UTF8:
      return JSON_BODY_ERRORS.invalidUtf8();
    case 'entity.parse.failed':
      return JSON_BODY_ERRORS.malformed();
    case 'request.size.invalid':
      return JSON_BODY_ERRORS.sizeMismatch();
  }
  // A decompression stream's error carries no type of body-parser's.
  const encoding = contentEncodingOf(req.headers);
  if (err.type === undefined && encoding !== 'identity') return JSON_BODY_ERRORS.undecodable(encoding);
  const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 400;
  return errorBody(status, err.message ?? 'Bad request');
}

/**
 * body-parser's `verify` hook: the body must be valid UTF-8. Decoding it would turn every invalid byte into
 * U+FFFD, and a job would store text its client never sent.
 */
function refuseInvalidUtf8(_req: IncomingMessage, _res: ServerResponse, body: Buffer): void {
  if (!isUtf8(body)) throw Object.assign(new Error('Invalid UTF-8 in request body'), { status: 400, type: INVALID_UTF8 });
}
