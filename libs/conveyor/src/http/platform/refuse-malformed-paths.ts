import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ConveyorRouteMatcher } from './conveyor-route-matcher';
import { JSON_BODY_ERRORS } from '../errors/json-body.errors';
import { sendErrorBody } from '../errors/send-error-body';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;
type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * Answers a request for one of Conveyor's routes whose path is not valid percent-encoded UTF-8 with a 400 in the
 * API's shape, on every platform. It has to come before the framework: Fastify refuses such a path while
 * looking up the route, before any hook, in its own shape (or through `frameworkErrors`, an option fixed when the
 * host creates its adapter), and Express's router with a bare message. So the server's request listeners are
 * wrapped; every other request goes to them untouched. `secure` (helmet) runs first, as on every Conveyor answer.
 */
export function refuseMalformedPaths(server: Server, routes: ConveyorRouteMatcher, secure: Middleware): void {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (!decodes(path) && routes.matches(path)) {
      secure(req, res, () => sendErrorBody(res, JSON_BODY_ERRORS.malformedPath()));
      return;
    }
    for (const listener of listeners) listener.call(server, req, res);
  });
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
