import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { answerClientErrors } from './client-error.responder';
import { errorBody } from './error-body';
import { HELMET_OPTIONS } from './helmet-options';
import { JSON_BODY_ERRORS } from './json-body.errors';

/** body-parser's `type` of the error {@link refuseInvalidUtf8} throws. */
const INVALID_UTF8 = 'entity.utf8.invalid';

/**
 * configureHttp on Express: helmet first, so every answer — a 413 from the body parser included — carries the
 * headers; then a check of the URL path, the JSON body parser and its errors in the API's shape.
 */
export function configureExpress(app: INestApplication, bodyLimitBytes: number): void {
  // Loaded here, not imported: a Fastify host need not install Express.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { json } = require('express') as typeof import('express');
  answerClientErrors(app.getHttpServer());
  app.use(helmet(HELMET_OPTIONS));
  // The router would refuse a path that is not valid percent-encoded UTF-8 only while matching, with a
  // bare message; answer it here in the API's shape instead.
  app.use((req: Request, res: Response, next: NextFunction) => {
    try {
      decodeURIComponent(req.path);
    } catch {
      return res.status(400).json(JSON_BODY_ERRORS.malformedPath());
    }
    next();
  });
  app.use(json({ limit: bodyLimitBytes, strict: false, type: ['application/json', 'application/*+json'], verify: refuseInvalidUtf8 }));
  app.use((err: { type?: string; status?: number; message?: string; charset?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (!err) return next();
    if (err.type === 'entity.too.large') return res.status(413).json(JSON_BODY_ERRORS.tooLarge(bodyLimitBytes));
    if (err.type === INVALID_UTF8) return res.status(400).json(JSON_BODY_ERRORS.invalidUtf8());
    if (err.type === 'entity.parse.failed') return res.status(400).json(JSON_BODY_ERRORS.malformed());
    if (err.type === 'charset.unsupported') return res.status(415).json(JSON_BODY_ERRORS.unsupportedCharset(err.charset ?? ''));
    const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 400;
    return res.status(status).json(errorBody(status, err.message ?? 'Bad request'));
  });
}

/**
 * body-parser's `verify` hook: a body in UTF-8 (JSON's default charset) must be valid UTF-8. Decoding it
 * would turn every invalid byte into U+FFFD, and a job would store text its client never sent.
 */
function refuseInvalidUtf8(_req: IncomingMessage, _res: ServerResponse, body: Buffer, encoding: string): void {
  if (encoding === 'utf-8' && !isUtf8(body)) {
    throw Object.assign(new Error('Invalid UTF-8 in request body'), { status: 400, type: INVALID_UTF8 });
  }
}
