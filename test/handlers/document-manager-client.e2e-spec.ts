import { forwardToManager, OutgoingDocument } from '../../apps/server/src/handlers/document-manager.client';
import { DocumentManagerBehaviour, DocumentManagerTestServer } from './document-manager-test-server';

/** forwardToManager against a fake manager: how each answer of the check and the send is classified. */
describe('forwardToManager', () => {
  const servers: DocumentManagerTestServer[] = [];
  const document: OutgoingDocument = { id: 'doc:7', body: JSON.stringify({ documentId: 'doc:7', contentBase64: 'aGk=' }) };
  const options = { signal: new AbortController().signal, timeoutMs: 2_000, idempotencyKey: 'job-1', allowPrivateNetworks: true };
  /** A Retry-After date an hour ahead, in whole seconds as HTTP dates have them: within the day a wait may last. */
  const inAnHour = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  async function manager(behaviour: DocumentManagerBehaviour): Promise<DocumentManagerTestServer> {
    const server = new DocumentManagerTestServer(behaviour);
    servers.push(server);
    return server.start();
  }

  it("keeps the manager URL's path and query, and escapes the document id in the path", async () => {
    const server = await manager({});
    const step = await forwardToManager(`${server.url}/?token=abc`, document, options);

    expect(step).toEqual({ kind: 'done', outcome: { outcome: 'sent', status: 201 } });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /dms/documents/doc%3A7?token=abc',
      'POST /dms/documents?token=abc',
    ]);
  });

  const origin = String.raw`http://127\.0\.0\.1:\d+`;
  it.each([
    [
      '409 to the send: someone else just sent it',
      [{ status: 404 }, { status: 409 }],
      { kind: 'done', outcome: { outcome: 'already-present', status: 409 } },
    ],
    [
      'a redirect: not followed, rejected',
      [{ status: 302, headers: { location: 'http://example.com/' } }],
      { kind: 'done', outcome: { outcome: 'rejected', status: 302, reason: 'redirects are not followed' } },
    ],
    [
      '401 to the check: rejected with the answer',
      [{ status: 401, body: 'who are you?' }],
      { kind: 'done', outcome: { outcome: 'rejected', status: 401, reason: 'who are you?' } },
    ],
    [
      '429 with a date to the send: busy until then',
      [{ status: 404 }, { status: 429, headers: { 'Retry-After': inAnHour.toUTCString() } }],
      { kind: 'busy', until: inAnHour, note: expect.stringMatching(new RegExp(`^POST ${origin} answered 429$`)) },
    ],
    [
      '429 without Retry-After: an ordinary failure',
      [{ status: 429, body: 'slow down' }],
      { kind: 'failed', reason: expect.stringMatching(new RegExp(`^GET ${origin} answered 429: slow down$`)) },
    ],
    [
      '408 to the check: an ordinary failure, the request may be repeated',
      [{ status: 408, body: 'request timeout' }],
      { kind: 'failed', reason: expect.stringMatching(new RegExp(`^GET ${origin} answered 408: request timeout$`)) },
    ],
    [
      '503 without Retry-After: an ordinary failure',
      [{ status: 404 }, { status: 503 }],
      { kind: 'failed', reason: expect.stringMatching(new RegExp(`^POST ${origin} answered 503$`)) },
    ],
  ])('%s', async (_case, first, expected) => {
    const server = await manager({ first });
    expect(await forwardToManager(server.url, document, options)).toEqual(expected);
  });

  it('a manager that cannot be reached is a failure naming its origin only', async () => {
    const server = await manager({});
    const url = `${server.url}/secret-path`;
    await server.close();

    const step = await forwardToManager(url, document, options);

    expect(step).toEqual({ kind: 'failed', reason: expect.stringMatching(/^GET http:\/\/127\.0\.0\.1:\d+ failed: .*ECONNREFUSED/) });
    expect(JSON.stringify(step)).not.toContain('secret');
  });

  it('throws the reason of an aborted job instead of reporting a failure', async () => {
    const server = await manager({});
    const reason = new Error('lease lost');

    await expect(forwardToManager(server.url, document, { ...options, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });
});
