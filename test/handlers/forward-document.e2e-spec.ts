import request from 'supertest';
import { AppSettings, loadAppConfig } from '../../apps/server/src/config/app-config';
import { APP_SETTINGS } from '../../apps/server/src/config/app-settings.token';
import { ForwardDocumentHandler } from '../../apps/server/src/handlers/forward-document.handler';
import { MAX_MANAGERS } from '../../apps/server/src/handlers/forward-document.payload';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { DocumentManagerBehaviour, DocumentManagerTestServer } from './document-manager-test-server';
import { finishedJobRow } from './finished-job-row';

/** Every retry after a failure waits exactly this long. */
const BACKOFF_MS = 200;
const BUSY_ONCE = { status: 503, headers: { 'Retry-After': '1' }, body: 'busy, come back later' };

function appSettings(overrides: Partial<AppSettings>): AppSettings {
  return { ...loadAppConfig({}).app, ...overrides };
}

/** FORWARD_DOCUMENT through the real engine and REST API, against fake document managers on loopback. */
describe('FORWARD_DOCUMENT handler', () => {
  let schema: TestSchema;
  let t: TestApp;
  const managers: DocumentManagerTestServer[] = [];

  beforeAll(async () => {
    schema = await createTestSchema('forward_document');
    t = await createTestApp({
      schema: schema.schema,
      providers: [
        ForwardDocumentHandler,
        { provide: APP_SETTINGS, useValue: appSettings({ webhookTimeoutMs: 2_000, allowPrivateNetworks: true }) },
      ],
      engine: { backoff: { baseMs: BACKOFF_MS, maxMs: BACKOFF_MS, factor: 1, jitter: 0 } },
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(managers.map((m) => m.close()));
    await schema?.drop();
  });

  async function manager(behaviour: DocumentManagerBehaviour = {}): Promise<DocumentManagerTestServer> {
    const server = new DocumentManagerTestServer(behaviour);
    managers.push(server);
    return server.start();
  }

  async function submit(payload: object): Promise<string> {
    const res = await request(t.app.getHttpServer()).post('/jobs').send({ type: 'FORWARD_DOCUMENT', payload }).expect(201);
    return res.body.id as string;
  }

  it('with ALLOW_PRIVATE_NETWORKS off, a manager on loopback makes the job DEAD on its first attempt, contacting none', async () => {
    const guardedSchema = await createTestSchema('forward_document_guarded');
    const guarded = await createTestApp({
      schema: guardedSchema.schema,
      providers: [ForwardDocumentHandler, { provide: APP_SETTINGS, useValue: appSettings({ webhookTimeoutMs: 2_000 }) }],
      http: false,
    });
    try {
      const local = await manager();
      const job = await guarded.jobs.enqueue('FORWARD_DOCUMENT', { documentId: 'memo-1', content: 'internal', managers: [local.url] });
      const row = await finishedJobRow(guarded.sql, guarded.jobsTable, job.id);

      expect(row).toMatchObject({ status: 'DEAD', attempts: 1 });
      expect(row.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'permanent' })]);
      expect(row.last_error).toBe(
        `PermanentJobError: GET ${new URL(local.url).origin} refused: 127.0.0.1 is not a public address; ALLOW_PRIVATE_NETWORKS=true allows private networks`,
      );
      expect(local.requests).toHaveLength(0);
    } finally {
      await guarded.close();
      await guardedSchema.drop();
    }
  });

  it('sends to a manager without the document, skips one that has it, and waits for a busy one without using an attempt', async () => {
    const accepting = await manager();
    const present = await manager({ has: ['invoice-42'] });
    const busy = await manager({ first: [BUSY_ONCE] });

    const id = await submit({
      documentId: 'invoice-42',
      content: 'Invoice 42: 100 EUR',
      fileName: 'invoice-42.txt',
      managers: [accepting.url, present.url, busy.url],
    });
    const row = await finishedJobRow(t.sql, t.jobsTable, id);

    expect(row).toMatchObject({ status: 'COMPLETED', queue: 'documents', attempts: 1, snoozes: 1 });
    expect(row.result).toEqual({
      documentId: 'invoice-42',
      managers: [
        { manager: accepting.url, outcome: 'sent', status: 201 },
        { manager: present.url, outcome: 'already-present', status: 200 },
        { manager: busy.url, outcome: 'sent', status: 201 },
      ],
    });
    // The busy answer is in the history as a snooze, naming the manager by origin.
    expect(row.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'retry-later', retryAt: expect.any(String) })]);
    expect(row.errors[0].error).toContain(`GET ${new URL(busy.url).origin} answered 503`);

    // The busy manager got the document exactly once, after the time it asked for.
    expect(busy.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'POST']);
    expect(busy.requests[1].at - busy.requests[0].at).toBeGreaterThanOrEqual(950);
    expect(busy.documents.get('invoice-42')).toEqual({
      documentId: 'invoice-42',
      fileName: 'invoice-42.txt',
      contentType: 'text/plain; charset=utf-8',
      content: Buffer.from('Invoice 42: 100 EUR'),
      idempotencyKey: id,
    });
    // The manager that had it was only asked; the accepting one was not contacted again after the snooze.
    expect(present.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /dms/documents/invoice-42']);
    expect(accepting.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /dms/documents/invoice-42', 'POST /dms/documents']);
    expect(accepting.documents.get('invoice-42')?.content.toString()).toBe('Invoice 42: 100 EUR');
  });

  it("a rejection is that manager's outcome, not a failure: the job completes after one attempt", async () => {
    const rejecting = await manager({ rejectWith: { status: 400, body: 'unsupported file type' } });
    const accepting = await manager();
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x80]);

    const id = await submit({
      documentId: 'scan-7',
      contentBase64: bytes.toString('base64'),
      contentType: 'application/pdf',
      managers: [rejecting.url, accepting.url],
    });
    const row = await finishedJobRow(t.sql, t.jobsTable, id);

    expect(row).toMatchObject({ status: 'COMPLETED', attempts: 1, snoozes: 0, last_error: null, errors: [] });
    expect(row.result).toEqual({
      documentId: 'scan-7',
      managers: [
        { manager: rejecting.url, outcome: 'rejected', status: 400, reason: 'unsupported file type' },
        { manager: accepting.url, outcome: 'sent', status: 201 },
      ],
    });
    expect(rejecting.posts).toHaveLength(1);
    expect(rejecting.documents.size).toBe(0);
    expect(accepting.documents.get('scan-7')).toMatchObject({ contentType: 'application/pdf', content: bytes });
  });

  it('a rejection quoting a NUL keeps every outcome, the NUL replaced: PostgreSQL cannot store one', async () => {
    const rejecting = await manager({ rejectWith: { status: 422, body: 'bad name: a\u0000b' } });
    const accepting = await manager();

    const id = await submit({ documentId: 'nul-1', content: 'Text', managers: [rejecting.url, accepting.url] });
    const row = await finishedJobRow(t.sql, t.jobsTable, id);

    expect(row).toMatchObject({ status: 'COMPLETED', attempts: 1, last_error: null });
    expect(row.result).toEqual({
      documentId: 'nul-1',
      managers: [
        { manager: rejecting.url, outcome: 'rejected', status: 422, reason: 'bad name: a\uFFFDb' },
        { manager: accepting.url, outcome: 'sent', status: 201 },
      ],
    });
  });

  it('a server error fails the attempt; the retry contacts only the managers still unsettled and keeps the earlier outcomes', async () => {
    const accepting = await manager();
    const rejecting = await manager({ rejectWith: { status: 422, body: 'too large' } });
    const flaky = await manager({ first: [{ status: 500, body: 'disk full' }] });

    const id = await submit({ documentId: 'report-3', content: 'Report 3', managers: [accepting.url, rejecting.url, flaky.url] });
    const row = await finishedJobRow(t.sql, t.jobsTable, id);

    expect(row).toMatchObject({ status: 'COMPLETED', attempts: 2, snoozes: 0 });
    expect(row.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'failed' })]);
    const flakyOrigin = new URL(flaky.url).origin;
    expect(row.errors[0].error).toMatch(/^DocumentForwardError: FORWARD_DOCUMENT report-3: 1 of 3 managers failed: /);
    expect(row.errors[0].error).toContain(`GET ${flakyOrigin} answered 500: disk full`);
    expect(row.result).toEqual({
      documentId: 'report-3',
      managers: [
        { manager: accepting.url, outcome: 'sent', status: 201 },
        { manager: rejecting.url, outcome: 'rejected', status: 422, reason: 'too large' },
        { manager: flaky.url, outcome: 'sent', status: 201 },
      ],
    });
    expect(accepting.requests).toHaveLength(2);
    expect(rejecting.requests).toHaveLength(2);
    expect(flaky.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'POST']);
    expect(flaky.documents.get('report-3')?.content.toString()).toBe('Report 3');
  });

  describe('payload validation', () => {
    const count = async () => (await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n as number;
    const valid = { documentId: 'doc-1', content: 'x', managers: ['http://dms.example.com'] };

    it.each([
      ['no managers', { ...valid, managers: [] }, 'payload.managers'],
      ['a missing managers list', { documentId: 'doc-1', content: 'x' }, 'payload.managers'],
      ['an ftp manager URL', { ...valid, managers: ['ftp://dms.example.com'] }, 'payload.managers'],
      ['a manager URL with credentials', { ...valid, managers: ['http://user:pass@dms.example.com'] }, 'payload.managers'],
      ['the same manager twice', { ...valid, managers: ['http://a.example.com', 'http://a.example.com'] }, 'payload.managers'],
      [
        'too many managers',
        { ...valid, managers: Array.from({ length: MAX_MANAGERS + 1 }, (_, i) => `http://dms${i}.example.com`) },
        'payload.managers',
      ],
      ['no content', { documentId: 'doc-1', managers: valid.managers }, 'payload.content'],
      ['both content and contentBase64', { ...valid, contentBase64: 'eA==' }, 'payload.contentBase64'],
      [
        'content that is not base64',
        { documentId: 'doc-1', contentBase64: 'not base64!', managers: valid.managers },
        'payload.contentBase64',
      ],
      ['a document id that is a path step', { ...valid, documentId: '..' }, 'payload.documentId'],
      ['a document id with a slash', { ...valid, documentId: 'a/b' }, 'payload.documentId'],
      ['a file name with a path', { ...valid, fileName: '../secret.txt' }, 'payload.fileName'],
      ['a malformed content type', { ...valid, contentType: 'pdf' }, 'payload.contentType'],
      ['an unknown field', { ...valid, priority: 1 }, 'payload.priority'],
    ])('refuses %s with a 400 naming the field, and stores nothing', async (_case, payload, field) => {
      const before = await count();

      const res = await request(t.app.getHttpServer()).post('/jobs').send({ type: 'FORWARD_DOCUMENT', payload }).expect(400);

      expect(res.body.message).toContain(field);
      expect(res.body.details).toEqual([expect.objectContaining({ field })]);
      expect(await count()).toBe(before);
    });
  });
});
