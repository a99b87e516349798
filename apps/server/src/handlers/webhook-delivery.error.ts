/**
 * A webhook request that got no HTTP answer (refused, reset, DNS, timeout) or an answer that is not
 * a success. An ordinary failure: the engine retries it with backoff.
 */
export class WebhookDeliveryError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookDeliveryError';
  }
}
