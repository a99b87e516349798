import { Inject } from '@nestjs/common';
import { Job, JobContext, JobHandler, JobHandlerHost, PermanentJobError, RetryLaterError } from '@conveyor/core';
import { Headers } from 'undici';
import { AppSettings } from '../config/app-config';
import { APP_SETTINGS } from '../config/app-settings.token';
import { fetchWithin } from './fetch-within';
import { readBodyStart } from './read-body-start';
import { parseRetryAfter } from './retry-after';
import { SendWebhookPayload } from './send-webhook.payload';
import { WebhookDeliveryError } from './webhook-delivery.error';

/** What SEND_WEBHOOK stores as its result. */
export interface SendWebhookResult {
  status: number;
  /** Start of the response body (at most 2 KiB). */
  body: string;
}

const MAX_BODY = 2048;
const MAX_ERROR_BODY = 200;
/** 408: the receiver gave up waiting for the request, which RFC 9110 lets the client repeat. */
const REQUEST_TIMEOUT = 408;

/**
 * POSTs JSON to a URL, with the job id as Idempotency-Key so the receiver can drop a repeat after a retry.
 * 2xx completes; 429 or 503 with Retry-After asks to run again at that time, at most a day ahead
 * (not counted as an attempt);
 * 3xx (redirects are not followed: the payload named the URL to call) and any other 4xx but 408 are permanent;
 * 5xx, 408, 429/503 without Retry-After, timeouts and network errors are ordinary failures, retried with backoff.
 */
@JobHandler('SEND_WEBHOOK', { queue: 'webhooks', payload: SendWebhookPayload, maxAttempts: 10 })
export class SendWebhookHandler extends JobHandlerHost<SendWebhookPayload, SendWebhookResult> {
  constructor(@Inject(APP_SETTINGS) private readonly settings: AppSettings) {
    super();
  }

  async handle(job: Job<SendWebhookPayload>, context: JobContext): Promise<SendWebhookResult> {
    const { url, body, headers } = job.payload;
    // Errors name the origin only: paths and queries of webhook URLs often carry secrets.
    const target = `POST ${new URL(url).origin}`;
    const response = await fetchWithin(
      url,
      { method: 'POST', headers: requestHeaders(job.id, headers), body: JSON.stringify(body ?? null), redirect: 'manual' },
      {
        signal: context.signal,
        timeoutMs: this.settings.webhookTimeoutMs,
        target,
        error: WebhookDeliveryError,
        allowPrivateNetworks: this.settings.allowPrivateNetworks,
      },
    );
    const { status } = response;
    const text = await readBodyStart(response, MAX_BODY);
    if (status >= 200 && status < 300) return { status, body: text };
    const answer = `${target} answered ${status}${text ? `: ${text.slice(0, MAX_ERROR_BODY)}` : ''}`;
    if (status === 429 || status === 503) {
      const at = parseRetryAfter(response.headers.get('retry-after'));
      if (at) throw new RetryLaterError(at, `${target} answered ${status}; retry after ${at.toISOString()}`);
      throw new WebhookDeliveryError(answer);
    }
    if (status >= 300 && status < 400) throw new PermanentJobError(`${target} answered ${status} (redirects are not followed)`);
    if (status >= 400 && status < 500 && status !== REQUEST_TIMEOUT) throw new PermanentJobError(answer);
    throw new WebhookDeliveryError(answer);
  }
}

/**
 * Defaults first, then the payload's headers: Headers.set matches names in any case, so a payload's
 * `Content-Type` replaces the default instead of being sent next to it as a second value.
 */
function requestHeaders(jobId: string, extra: Record<string, string> | undefined): Headers {
  const headers = new Headers({ 'content-type': 'application/json', 'idempotency-key': jobId });
  for (const [name, value] of Object.entries(extra ?? {})) headers.set(name, value);
  return headers;
}
