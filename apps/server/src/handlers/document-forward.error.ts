/**
 * A FORWARD_DOCUMENT attempt in which some document manager gave no answer (refused, reset, DNS,
 * timeout) or answered with a server error. An ordinary failure: the engine retries it with backoff.
 */
export class DocumentForwardError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DocumentForwardError';
  }
}
