import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';

/** How the server answers one request; `hang` never answers. */
export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  hang?: boolean;
}

/** A request the server saw. */
export interface SeenRequest {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request was complete. */
  at: number;
}

/** A scripted endpoint: its URL and the requests it saw. */
export interface TestEndpoint {
  url: string;
  requests: SeenRequest[];
}

/**
 * A loopback HTTP server whose endpoints answer from a script: each request takes the next reply,
 * and the last reply repeats. Every endpoint has a path of its own, so tests do not see each other's calls.
 */
export class WebhookTestServer {
  private readonly server: Server;
  private readonly endpoints = new Map<string, { replies: ScriptedReply[]; seen: SeenRequest[] }>();
  private readonly hanging = new Set<ServerResponse>();
  private baseUrl = '';

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const endpoint = this.endpoints.get(req.url ?? '');
        if (!endpoint) {
          res.writeHead(599).end('no such endpoint');
          return;
        }
        endpoint.seen.push({
          method: req.method ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        const reply = endpoint.replies[Math.min(endpoint.seen.length, endpoint.replies.length) - 1];
        if (reply.hang) {
          this.hanging.add(res);
          return;
        }
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...(reply.headers ?? {}) }).end(reply.body ?? '');
      });
    });
  }

  /** Listens on `host` (`::` also takes IPv4); endpoint URLs name 127.0.0.1 either way. */
  async start(host = '127.0.0.1'): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, host, resolve));
    const { port } = this.server.address() as { port: number };
    this.baseUrl = `http://127.0.0.1:${port}`;
  }

  /** A new endpoint answering with `replies` in turn. */
  endpoint(...replies: ScriptedReply[]): TestEndpoint {
    const path = `/hook/${randomUUID()}`;
    const seen: SeenRequest[] = [];
    this.endpoints.set(path, { replies: replies.length > 0 ? replies : [{}], seen });
    return { url: `${this.baseUrl}${path}`, requests: seen };
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
