import type { ServerResponse } from 'node:http';
import { ErrorBody } from './error-body';

/**
 * Writes an error body on Node's own response, for the answers given before any framework's reply exists (or
 * instead of it): the same bytes on Express and Fastify. Headers already set on the response (helmet's) stay.
 */
export function sendErrorBody(res: ServerResponse, body: ErrorBody): void {
  const json = JSON.stringify(body);
  res.statusCode = body.statusCode;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}
