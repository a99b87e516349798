import { Inject } from '@nestjs/common';
import { Job, JobContext, JobHandler, JobHandlerHost, JobsService, RetryLaterError } from '@conveyor/core';
import { AppSettings } from '../config/app-config';
import { APP_SETTINGS } from '../config/app-settings.token';
import { forwardToManager, ManagerStep, OutgoingDocument } from './document-manager.client';
import { DocumentForwardError } from './document-forward.error';
import { ForwardDocumentPayload } from './forward-document.payload';
import { ForwardDocumentResult } from './forward-document.result';
import { ForwardProgress, readProgress, withProgress } from './forward-progress';

/** Most failures or busy managers an error names one by one. */
const NAMED = 3;

/**
 * Sends one document to several document managers, each at most once.
 *
 * Every manager is first asked whether it already has the document (`GET {manager}/documents/{id}`), so a
 * document submitted elsewhere is not sent twice; if not, it is sent (`POST {manager}/documents`, JSON
 * `{ documentId, fileName?, contentType, contentBase64 }`, the job id as Idempotency-Key). The managers are
 * served concurrently, and each ends `sent`, `already-present` or `rejected` (a 3xx or 4xx is that manager's
 * answer, not a reason to fail the job) — see forwardToManager.
 *
 * The attempt ends early while some manager is unsettled. A failure (5xx, timeout, network) makes it an
 * ordinary failed attempt, retried with backoff; otherwise a busy manager (429/503 with Retry-After) makes
 * the job run again at the latest time the busy managers gave, without using an attempt. Either way the
 * outcomes reached so far travel to the next attempt in the error message (see forward-progress), and only
 * the unsettled managers are contacted again. The job completes once every manager has an outcome.
 */
@JobHandler('FORWARD_DOCUMENT', { queue: 'documents', payload: ForwardDocumentPayload, maxAttempts: 10 })
export class ForwardDocumentHandler extends JobHandlerHost<ForwardDocumentPayload, ForwardDocumentResult> {
  constructor(
    @Inject(APP_SETTINGS) private readonly settings: AppSettings,
    private readonly jobs: JobsService,
  ) {
    super();
  }

  async handle(job: Job<ForwardDocumentPayload>, context: JobContext): Promise<ForwardDocumentResult> {
    const { documentId, managers } = job.payload;
    const progress = await this.earlierProgress(job);
    const document = outgoingDocument(job.payload);
    const { webhookTimeoutMs: timeoutMs, allowPrivateNetworks } = this.settings;
    const options = { signal: context.signal, timeoutMs, idempotencyKey: job.id, allowPrivateNetworks };

    const unsettled = managers.map((_, index) => index).filter((index) => !progress.has(index));
    const steps = await Promise.all(unsettled.map((index) => forwardToManager(managers[index], document, options)));
    // A body cut off by an abort still yields an answer; the engine's reason for the abort wins.
    if (context.signal.aborted) throw context.signal.reason;
    const failed: string[] = [];
    const busy: Array<Extract<ManagerStep, { kind: 'busy' }>> = [];
    steps.forEach((step, i) => {
      if (step.kind === 'done') progress.set(unsettled[i], step.outcome);
      else if (step.kind === 'failed') failed.push(step.reason);
      else busy.push(step);
    });

    const of = `${managers.length} manager${managers.length === 1 ? '' : 's'}`;
    if (failed.length > 0) {
      throw new DocumentForwardError(
        withProgress(`FORWARD_DOCUMENT ${documentId}: ${failed.length} of ${of} failed: ${listed(failed)}`, progress),
      );
    }
    if (busy.length > 0) {
      const until = new Date(Math.max(...busy.map((b) => b.until.getTime())));
      const notes = listed(busy.map((b) => b.note));
      const summary = `FORWARD_DOCUMENT ${documentId}: ${busy.length} of ${of} busy (${notes}); retry after ${until.toISOString()}`;
      throw new RetryLaterError(until, withProgress(summary, progress));
    }
    return { documentId, managers: managers.map((manager, index) => ({ manager, ...progress.get(index)! })) };
  }

  /**
   * Outcomes of earlier attempts. A claimed job does not carry its error history, so it is read only when
   * there can be one: after a failed, snoozed or rescued attempt.
   */
  private async earlierProgress(job: Job<ForwardDocumentPayload>): Promise<ForwardProgress> {
    if (job.attempts <= 1 && job.snoozes === 0) return new Map();
    const { errors } = await this.jobs.get(job.id);
    return readProgress(errors, job.payload.managers.length);
  }
}

function outgoingDocument(payload: ForwardDocumentPayload): OutgoingDocument {
  const text = payload.contentBase64 === undefined;
  const body = {
    documentId: payload.documentId,
    fileName: payload.fileName,
    contentType: payload.contentType ?? (text ? 'text/plain; charset=utf-8' : 'application/octet-stream'),
    contentBase64: text ? Buffer.from(payload.content ?? '', 'utf8').toString('base64') : payload.contentBase64,
  };
  return { id: payload.documentId, body: JSON.stringify(body) };
}

/** The first few, then how many more. */
function listed(items: string[]): string {
  const named = items.slice(0, NAMED).join('; ');
  return items.length > NAMED ? `${named}; and ${items.length - NAMED} more` : named;
}
