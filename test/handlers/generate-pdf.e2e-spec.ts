import request from 'supertest';
import { JobContext } from '@conveyor/core';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppSettings, loadAppConfig } from '../../apps/server/src/config/app-config';
import { APP_SETTINGS } from '../../apps/server/src/config/app-settings.token';
import { GeneratePdfHandler } from '../../apps/server/src/handlers/generate-pdf.handler';
import { GeneratePdfPayload, MAX_PARAGRAPHS } from '../../apps/server/src/handlers/generate-pdf.payload';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { finishedJobRow } from './finished-job-row';
import { inspectPdf } from './pdf-file';

function appSettings(overrides: Partial<AppSettings>): AppSettings {
  return { ...loadAppConfig({}).app, ...overrides };
}

/** A context for calling the handler directly, outside the engine. */
function directContext(signal: AbortSignal = new AbortController().signal): JobContext {
  return { signal, attempt: 1, workerId: 'test', heartbeat: async () => undefined, progress: async () => undefined };
}

/** GENERATE_PDF through the real engine and REST API: the file on disk, its pages and text, payload checks. */
describe('GENERATE_PDF handler', () => {
  let schema: TestSchema;
  let pdfDir: string;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('generate_pdf');
    pdfDir = await mkdtemp(join(tmpdir(), 'conveyor-pdfs-'));
    t = await createTestApp({
      schema: schema.schema,
      providers: [GeneratePdfHandler, { provide: APP_SETTINGS, useValue: appSettings({ pdfDir }) }],
    });
  });
  afterAll(async () => {
    await t?.close();
    await schema?.drop();
    if (pdfDir) await rm(pdfDir, { recursive: true, force: true });
  });

  async function submit(payload: object): Promise<string> {
    const res = await request(t.app.getHttpServer()).post('/jobs').send({ type: 'GENERATE_PDF', payload }).expect(201);
    return res.body.id as string;
  }

  it('renders the PDF to <PDF_DIR>/<job id>.pdf and stores path, size and pages as the result', async () => {
    const id = await submit({
      title: 'Quarterly report',
      author: 'Ada Lovelace',
      paragraphs: ['Revenue grew in every region.', 'Café crème – “quoted” – €42\nSecond line of the paragraph.'],
    });
    const row = await finishedJobRow(t.sql, t.jobsTable, id);

    const path = join(pdfDir, `${id}.pdf`);
    expect(row).toMatchObject({ status: 'COMPLETED', queue: 'pdfs', attempts: 1, last_error: null });
    expect(row.result).toEqual({ path, size: (await stat(path)).size, pages: 1 });
    const bytes = await readFile(path);
    const pdf = inspectPdf(bytes);
    expect(pdf).toMatchObject({ pages: 1, declaredPages: 1 });
    // The inspection would notice a file cut short.
    expect(() => inspectPdf(bytes.subarray(0, bytes.length - 100))).toThrow();
    expect(pdf.text).toContain('Quarterly report');
    expect(pdf.text).toContain('Ada Lovelace');
    expect(pdf.text).toContain('Revenue grew in every region.');
    expect(pdf.text).toContain('Café crème – “quoted” – €42');
    expect(pdf.text).toContain('Second line of the paragraph.');
    // Only the finished file: no temporary file is left next to it.
    expect((await readdir(pdfDir)).filter((f) => f.includes(id))).toEqual([`${id}.pdf`]);
  });

  it('a long document runs over several pages, and the result counts them', async () => {
    const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(60);
    const id = await submit({ title: 'Long', paragraphs: Array.from({ length: 12 }, (_, i) => `Part ${i + 1}. ${paragraph}`) });
    const row = await finishedJobRow(t.sql, t.jobsTable, id);

    expect(row.status).toBe('COMPLETED');
    const { pages } = row.result as { pages: number };
    expect(pages).toBeGreaterThan(2);
    const pdf = inspectPdf(await readFile(join(pdfDir, `${id}.pdf`)));
    expect(pdf).toMatchObject({ pages, declaredPages: pages });
    expect(pdf.text).toContain('Part 12.');
  });

  it('running a job again overwrites its own file instead of adding a second one', async () => {
    const handler = t.app.get(GeneratePdfHandler);
    const id = '00000000-0000-4000-8000-0000000000aa';
    const job = { id, payload: { title: 'First run' } as GeneratePdfPayload } as Parameters<GeneratePdfHandler['handle']>[0];

    const first = await handler.handle(job, directContext());
    const second = await handler.handle({ ...job, payload: { title: 'Second run' } }, directContext());

    expect(second.path).toBe(first.path);
    expect((await readdir(pdfDir)).filter((f) => f.includes(id))).toEqual([`${id}.pdf`]);
    expect(inspectPdf(await readFile(second.path)).text).toContain('Second run');
  });

  it('an aborted attempt throws the abort reason and leaves no file behind', async () => {
    const handler = t.app.get(GeneratePdfHandler);
    const id = '00000000-0000-4000-8000-0000000000bb';
    const job = { id, payload: { title: 'Never finished', paragraphs: ['a', 'b', 'c'] } } as Parameters<GeneratePdfHandler['handle']>[0];
    const reason = new Error('the attempt timed out');

    await expect(handler.handle(job, directContext(AbortSignal.abort(reason)))).rejects.toBe(reason);
    expect((await readdir(pdfDir)).filter((f) => f.includes(id))).toEqual([]);
  });

  describe('payload validation', () => {
    const count = async () => (await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n as number;

    it.each([
      ['a missing title', { paragraphs: ['x'] }, 'payload.title'],
      ['an empty title', { title: '' }, 'payload.title'],
      ['a title of two lines', { title: 'a\nb' }, 'payload.title'],
      ['text the standard fonts cannot show', { title: 'ok', paragraphs: ['fine', '\u4e2d\u6587'] }, 'payload.paragraphs'],
      ['paragraphs that are not strings', { title: 'ok', paragraphs: [1] }, 'payload.paragraphs'],
      ['too many paragraphs', { title: 'ok', paragraphs: Array.from({ length: MAX_PARAGRAPHS + 1 }, () => 'x') }, 'payload.paragraphs'],
      ['a paragraph too long', { title: 'ok', paragraphs: ['x'.repeat(10_001)] }, 'payload.paragraphs'],
      ['an unknown field', { title: 'ok', fileName: '../../etc/passwd' }, 'payload.fileName'],
    ])('refuses %s with a 400 naming the field, and stores nothing', async (_case, payload, field) => {
      const before = await count();

      const res = await request(t.app.getHttpServer()).post('/jobs').send({ type: 'GENERATE_PDF', payload }).expect(400);

      expect(res.body.message).toContain(field);
      expect(res.body.details).toEqual([expect.objectContaining({ field })]);
      expect(await count()).toBe(before);
    });
  });
});
