import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { json } from 'express';
import helmet from 'helmet';
import { answerClientErrors } from './client-error.responder';
import { CONVEYOR_HTTP_MOUNT_PATH } from './conveyor-http.constants';
import { errorBody } from './error-body';
import { setupApiDocs } from './openapi/setup-api-docs';

/** HTTP settings of the app that hosts the API. */
export interface HttpSettings {
  /** Largest accepted body, in bytes. */
  bodyLimitBytes: number;
  /**
   * Serve the OpenAPI document (Swagger UI at /docs, JSON at /docs-json, under the global prefix and the
   * module's `path`); default true. Set the global prefix before calling configureHttp.
   */
  apiDocs?: boolean;
}

/** body-parser's `type` of the error {@link refuseInvalidUtf8} throws. */
const INVALID_UTF8 = 'entity.utf8.invalid';

/**
 * Security headers (helmet), body parsing with a size limit, and JSON errors for what fails before a
 * controller runs: a malformed URL path, malformed JSON or a body that is not valid UTF-8 is a 400, an
 * oversized body a 413, headers over Node's limit a 431 (see answerClientErrors); and the API
 * documentation at /docs. Create the app with `{ bodyParser: false }`.
 */
export function configureHttp(app: INestApplication, settings: HttpSettings): void {
  answerClientErrors(app.getHttpServer());
  // First, so that every answer — a 413 from the body parser included — carries the headers. Helmet's default
  // CSP already lets the dashboard and the Swagger UI load their own script and style files; only
  // `upgrade-insecure-requests` goes: on a service reached over plain HTTP (an internal network, TLS ended at a
  // proxy) browsers would fetch those files over https from a port that does not speak it, and the pages break.
  app.use(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }));
  // The router would refuse a path that is not valid percent-encoded UTF-8 only while matching, with a
  // bare message; answer it here in the API's shape instead.
  app.use((req: Request, res: Response, next: NextFunction) => {
    try {
      decodeURIComponent(req.path);
    } catch {
      return res.status(400).json(errorBody(400, 'Malformed URL path', [{ field: 'path', problems: ['is not valid percent-encoded UTF-8'] }]));
    }
    next();
  });
  app.use(json({ limit: settings.bodyLimitBytes, strict: false, type: ['application/json', 'application/*+json'], verify: refuseInvalidUtf8 }));
  app.use((err: { type?: string; status?: number; message?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (!err) return next();
    if (err.type === 'entity.too.large') {
      return res.status(413).json(errorBody(413, `Request body is larger than ${settings.bodyLimitBytes} bytes`));
    }
    if (err.type === INVALID_UTF8) {
      return res.status(400).json(errorBody(400, 'Invalid UTF-8 in request body', [{ field: 'body', problems: ['is not valid UTF-8'] }]));
    }
    if (err.type === 'entity.parse.failed') {
      return res.status(400).json(errorBody(400, 'Malformed JSON in request body', [{ field: 'body', problems: ['is not valid JSON'] }]));
    }
    const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 400;
    return res.status(status).json(errorBody(status, err.message ?? 'Bad request'));
  });
  if (settings.apiDocs !== false) setupApiDocs(app, mountPathOf(app));
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

/**
 * ConveyorHttpModule's `path` in this app; `''` without one. Looked up rather than asked for with `app.get`,
 * which ends the process when the token is missing (no path, or no ConveyorHttpModule at all).
 */
function mountPathOf(app: INestApplication): string {
  for (const moduleRef of app.get(ModulesContainer).values()) {
    const provider = moduleRef.providers.get(CONVEYOR_HTTP_MOUNT_PATH);
    if (provider) return provider.instance as string;
  }
  return '';
}
