import { Inject } from '@nestjs/common';
import { Job, JobContext, JobHandler, JobHandlerHost, PermanentJobError, RetryLaterError } from '@conveyor/core';
import { AppSettings } from '../config/app-config';
import { APP_SETTINGS } from '../config/app-settings.token';
import { parseRetryAfter } from './retry-after';
import { SendWebhookPayload } from './send-webhook.payload';

/** What SEND_WEBHOOK stores as its result. */
export interface SendWebhookResult {
  status: number;
  /** Start of the response body (at most 2 KiB). */
  body: string;
}

const MAX_BODY = 2048;

/**
 * POSTs JSON to a URL. 2xx completes; 429 or 503 with Retry-After asks to run again at that time
 * (not counted as an attempt); any other 4xx is permanent; 5xx, 429/503 without Retry-After, timeouts
 * and network errors are ordinary failures, retried with backoff.
 */
@JobHandler('SEND_WEBHOOK', { queue: 'webhooks', payload: SendWebhookPayload, maxAttempts: 10 })
export class SendWebhookHandler extends JobHandlerHost<SendWebhookPayload, SendWebhookResult> {
  constructor(@Inject(APP_SETTINGS) private readonly settings: AppSettings) {
    super();
  }

  async handle(job: Job<SendWebhookPayload>, context: JobContext): Promise<SendWebhookResult> {
    const { url, body, headers } = job.payload;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': job.id, ...(headers ?? {}) },
      body: JSON.stringify(body ?? null),
      signal: AbortSignal.any([context.signal, AbortSignal.timeout(this.settings.webhookTimeoutMs)]),
      redirect: 'manual',
    });
    const text = (await response.text()).slice(0, MAX_BODY);
    const { status } = response;
    if (status >= 200 && status < 300) return { status, body: text };
    if (status === 429 || status === 503) {
      const at = parseRetryAfter(response.headers.get('retry-after'));
      if (at) throw new RetryLaterError(at, `Webhook answered ${status}; retry after ${at.toISOString()}`);
      throw new Error(`Webhook answered ${status}: ${text.slice(0, 200)}`);
    }
    if (status >= 400 && status < 500) throw new PermanentJobError(`Webhook refused the request with ${status}: ${text.slice(0, 200)}`);
    throw new Error(`Webhook answered ${status}: ${text.slice(0, 200)}`);
  }
}
