import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { ScriptedReply } from './webhook-test-server';

/** A document as the fake manager stored it. */
export interface StoredDocument {
  documentId: string;
  fileName?: string;
  contentType?: string;
  content: Buffer;
  idempotencyKey?: string;
}

/** A request the fake manager saw. */
export interface ManagerRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request was complete. */
  at: number;
}

/** How a fake manager behaves. */
export interface DocumentManagerBehaviour {
  /** Ids of documents it has from the start (submitted elsewhere). */
  has?: string[];
  /** Answers to its first requests, whatever they are (e.g. one 503 "busy"); then it behaves normally. */
  first?: ScriptedReply[];
  /** Its answer to every document sent (e.g. 400 "unsupported type") instead of storing it. */
  rejectWith?: ScriptedReply;
}

/**
 * A fake document manager on a loopback port, mounted under `/dms` so the handler's path joining is
 * exercised (a query string is ignored): `GET /dms/documents/{id}` answers 200 with the document's metadata or 404, and
 * `POST /dms/documents` stores a JSON `{ documentId, fileName?, contentType?, contentBase64 }` and
 * answers 201 (409 when it already has that id). Every request is recorded.
 */
export class DocumentManagerTestServer {
  readonly documents = new Map<string, StoredDocument>();
  readonly requests: ManagerRequest[] = [];
  private readonly server: Server;
  private baseUrl = '';

  constructor(private readonly behaviour: DocumentManagerBehaviour = {}) {
    for (const id of behaviour.has ?? []) this.documents.set(id, { documentId: id, content: Buffer.from('submitted elsewhere') });
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const seen = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.requests.push(seen);
        const scripted = this.behaviour.first?.[this.requests.length - 1];
        const reply = scripted ?? this.answer(seen);
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...(reply.headers ?? {}) }).end(reply.body ?? '');
      });
    });
  }

  /** Base URL to put in a payload's `managers`. */
  get url(): string {
    return `${this.baseUrl}/dms`;
  }

  /** Requests that sent a document (POST), accepted or not. */
  get posts(): ManagerRequest[] {
    return this.requests.filter((r) => r.method === 'POST');
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    this.baseUrl = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: ManagerRequest): ScriptedReply {
    const path = new URL(req.path, 'http://manager').pathname;
    const item = /^\/dms\/documents\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && item) {
      const document = this.documents.get(decodeURIComponent(item[1]));
      return document
        ? { status: 200, body: JSON.stringify({ documentId: document.documentId }) }
        : { status: 404, body: 'no such document' };
    }
    if (req.method === 'POST' && path === '/dms/documents') {
      if (this.behaviour.rejectWith) return this.behaviour.rejectWith;
      const sent = JSON.parse(req.body) as { documentId: string; fileName?: string; contentType?: string; contentBase64: string };
      if (this.documents.has(sent.documentId)) return { status: 409, body: 'already stored' };
      this.documents.set(sent.documentId, {
        documentId: sent.documentId,
        fileName: sent.fileName,
        contentType: sent.contentType,
        content: Buffer.from(sent.contentBase64, 'base64'),
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      });
      return { status: 201, body: JSON.stringify({ documentId: sent.documentId }) };
    }
    return { status: 405, body: `unexpected ${req.method} ${req.path}` };
  }
}
