import { Inject } from '@nestjs/common';
import { Job, JobContext, JobHandler, JobHandlerHost } from '@conveyor/core';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import PDFDocument from 'pdfkit';
import { AppSettings } from '../config/app-config';
import { APP_SETTINGS } from '../config/app-settings.token';
import { GeneratePdfPayload } from './generate-pdf.payload';
import { writeFileAtomically } from './write-file-atomically';

/** What GENERATE_PDF stores as its result. */
export interface GeneratePdfResult {
  /** Absolute path of the file. */
  path: string;
  /** Bytes. */
  size: number;
  pages: number;
}

/**
 * Renders a PDF (A4, standard Helvetica fonts) from a title and paragraphs and stores it as
 * `<PDF_DIR>/<job id>.pdf`. Naming the file by job id makes a retry overwrite its own earlier output
 * instead of leaving a second file, and the write is atomic (temporary file, then rename), so a reader
 * never sees half a PDF. Rendering yields to the event loop between paragraphs, so heartbeats keep
 * running and an abort (timeout, shutdown, lost claim) stops a long document early; a stopped attempt
 * leaves no file behind.
 */
@JobHandler('GENERATE_PDF', { queue: 'pdfs', payload: GeneratePdfPayload, maxAttempts: 3, timeout: 120_000, concurrency: 2 })
export class GeneratePdfHandler extends JobHandlerHost<GeneratePdfPayload, GeneratePdfResult> {
  constructor(@Inject(APP_SETTINGS) private readonly settings: AppSettings) {
    super();
  }

  async handle(job: Job<GeneratePdfPayload>, context: JobContext): Promise<GeneratePdfResult> {
    const { title, author, paragraphs = [] } = job.payload;
    const dir = resolve(this.settings.pdfDir);
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${job.id}.pdf`);

    // pdfkit writes every key of `info`, and fails on one whose value is undefined.
    const info = { Title: title, Creator: 'Conveyor GENERATE_PDF', ...(author ? { Author: author } : {}) };
    const doc = new PDFDocument({ size: 'A4', margin: 56, info });
    let pages = 1;
    doc.on('pageAdded', () => pages++);
    // Started before rendering: pdfkit streams finished pages out while later ones are drawn.
    const written = writeFileAtomically(path, doc, context.signal);
    try {
      doc.font('Helvetica-Bold').fontSize(20).text(title);
      if (author) doc.moveDown(0.3).font('Helvetica-Oblique').fontSize(11).text(author);
      doc.moveDown().font('Helvetica').fontSize(11);
      for (const paragraph of paragraphs) {
        await nextTurn();
        if (context.signal.aborted) throw context.signal.reason;
        doc.text(paragraph.replace(/\r\n?/g, '\n'), { paragraphGap: 6 });
      }
    } catch (err) {
      // The write must end too, and remove its temporary file, before the attempt does.
      doc.destroy();
      await written.catch(() => undefined);
      throw err;
    }
    doc.end();
    const size = await written.catch((err: unknown) => {
      throw context.signal.aborted ? context.signal.reason : err;
    });
    return { path, size, pages };
  }
}
