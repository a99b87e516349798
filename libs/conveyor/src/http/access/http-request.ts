import type { IncomingHttpHeaders } from 'node:http';

/**
 * What Conveyor's guards read from a request, common to Express's and Fastify's request objects: the headers,
 * and the client address (`ip` honours the platform's trust-proxy setting; the socket's is the fallback).
 */
export interface HttpRequestLike {
  headers: IncomingHttpHeaders;
  ip?: string;
  socket?: { remoteAddress?: string };
}
