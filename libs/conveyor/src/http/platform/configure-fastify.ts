import type { Server } from 'node:http';
import { dirname } from 'node:path';
import { HttpException, INestApplication } from '@nestjs/common';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler, RouteOptions } from 'fastify';
import helmet from 'helmet';
import { answerClientErrors } from '../errors/client-error.responder';
import { ConveyorRouteMatcher } from './conveyor-route-matcher';
import { ErrorBody } from '../errors/error-body';
import { parseJsonBody } from './fastify-json-body';
import { HELMET_OPTIONS } from './helmet-options';
import { JSON_BODY_ERRORS } from '../errors/json-body.errors';
import { refuseBodyHeaders } from './json-media-type';
import { refuseMalformedPaths } from './refuse-malformed-paths';

type Done = (err?: Error) => void;
type ParserDone = (err: Error | null, body?: unknown) => void;

/** Media types read as JSON on Conveyor's routes, as on Express. */
const JSON_PLUS = /^application\/[\w.-]+\+json$/i;

/**
 * configureHttp on Fastify, scoped to Conveyor's routes as on Express:
 * - helmet as an `onRequest` hook that steps aside for the host's paths;
 * - Conveyor's routes get, as they are registered (`onRoute`), Conveyor's body limit, a `preParsing` hook that
 *   refuses from the headers what Express refuses (a body that is not JSON in UTF-8...), and an error handler
 *   that answers the body's errors — Fastify's own (too large, a size that does not match Content-Length)
 *   and the JSON parser's — in the API's shape, leaving every other error to Nest's handler;
 * - the JSON parser is one per Fastify instance, so it is replaced by one that reads Conveyor's routes as Express
 *   does (UTF-8 checked, `{}` for an empty body, gzip/deflate/br) and the host's as Fastify's own parser does;
 * - what fails before there is a route — a path that does not decode, what Node's HTTP parser refuses — is
 *   answered as on Express (refuseMalformedPaths, answerClientErrors, replacing Fastify's own answers).
 */
export function configureFastify(app: INestApplication, bodyLimitBytes: number): void {
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  const routes = new ConveyorRouteMatcher(app);
  const secure = helmet(HELMET_OPTIONS);
  const server = app.getHttpServer() as Server;
  server.removeAllListeners('clientError');
  answerClientErrors(server);
  refuseMalformedPaths(server, routes, secure);

  fastify.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: Done) => {
    if (!routes.matches(req.raw.url ?? '/')) return done();
    secure(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
  });

  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (!routes.matches(route.url)) return;
    route.bodyLimit = bodyLimitBytes;
    route.preParsing = [...asArray(route.preParsing), refuseByHeaders];
    route.errorHandler = answerBodyErrors(fastify, bodyLimitBytes);
  });

  const rawBody = keepNestFromReplacingJsonParser(app);
  const hostJson = () => {
    const { onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig;
    return fastify.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  };
  const { FST_ERR_CTP_INVALID_MEDIA_TYPE } = adapterFastify().errorCodes;
  const parse = (req: FastifyRequest, body: Buffer, done: ParserDone): void => {
    if (rawBody.wanted) (req as FastifyRequest & { rawBody?: Buffer }).rawBody = body;
    if (routes.matches(req.raw.url ?? '/')) {
      const parsed = parseJsonBody(body, req.headers, bodyLimitBytes);
      return parsed.ok ? done(null, parsed.value) : done(bodyError(parsed.error));
    }
    // The host's routes as before: application/json through Fastify's own parser, and no parser for +json.
    if (!isPlainJson(req.headers['content-type'])) return done(new FST_ERR_CTP_INVALID_MEDIA_TYPE(req.headers['content-type']));
    hostJson()(req, body.toString('utf8'), done);
  };
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, parse);
  fastify.addContentTypeParser(JSON_PLUS, { parseAs: 'buffer' }, parse);
}

function isPlainJson(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';', 1)[0].trim().toLowerCase() === 'application/json';
}

/** Refuses on Conveyor's routes, before the body is read, what Express's refuses from the headers. */
const refuseByHeaders: preParsingHookHandler = (req, _reply, payload, done) => {
  const refused = refuseBodyHeaders(req.headers);
  if (refused) done(bodyError(refused));
  else done(null, payload);
};

/**
 * The error handler of Conveyor's routes: what fails while a body is read and parsed, in the API's shape.
 * Errors from the route itself never get here (Nest's filters answer them inside the handler), and the rest goes to
 * the instance's handler, Nest's, looked up per call since Nest installs it after the routes.
 */
function answerBodyErrors(fastify: FastifyInstance, limitBytes: number) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply): unknown => {
    const body = bodyErrorOf(err, limitBytes);
    if (body) return reply.code(body.statusCode).type('application/json; charset=utf-8').send(JSON.stringify(body));
    return fastify.errorHandler.call(fastify, err, req, reply);
  };
}

function bodyErrorOf(err: FastifyError, limitBytes: number): ErrorBody | undefined {
  if (err instanceof HttpException && err.cause === BODY_ERROR) return err.getResponse() as ErrorBody;
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return JSON_BODY_ERRORS.tooLarge(limitBytes);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return JSON_BODY_ERRORS.sizeMismatch();
    default:
      return undefined;
  }
}

/** Marks the errors this file raises, so the error handler answers exactly those. */
const BODY_ERROR = Symbol('conveyor body error');

function bodyError(body: ErrorBody): HttpException {
  return new HttpException(body, body.statusCode, { cause: BODY_ERROR });
}

/**
 * With `bodyParser` on (Nest's default), Nest's FastifyAdapter adds its own application/json parser at
 * `init()`, which Fastify refuses next to this one. That registration is turned into a note of whether the host
 * asked for `rawBody`, which the parser above then keeps, as Nest's would have.
 */
function keepNestFromReplacingJsonParser(app: INestApplication): { wanted: boolean } {
  const rawBody = { wanted: false };
  const adapter = app.getHttpAdapter() as unknown as { registerJsonContentParser?: (rawBody?: boolean) => void };
  if (typeof adapter.registerJsonContentParser === 'function') {
    adapter.registerJsonContentParser = (wanted?: boolean) => {
      rawBody.wanted = Boolean(wanted);
    };
  }
  return rawBody;
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * The Fastify module that the host's @nestjs/platform-fastify (an optional peer) depends on, loaded when a Fastify
 * app is configured (an Express host need not install Fastify). Resolved from that package, not from this one:
 * Fastify is neither a dependency nor a peer of @conveyor/core, so a strict layout (pnpm's) or an app whose own
 * Fastify is another version leaves a bare `require('fastify')` here without it, or with another copy.
 */
function adapterFastify(): typeof import('fastify') {
  const adapterDir = dirname(require.resolve('@nestjs/platform-fastify'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(require.resolve('fastify', { paths: [adapterDir] })) as typeof import('fastify');
}
