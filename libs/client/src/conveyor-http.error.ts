import { ErrorBody } from './job.types';

/**
 * The server answered with an error status. `status` and `body` (the server's `{ statusCode, error, message,
 * details? }`, when it sent one) say what went wrong; `retryAfterMs` carries a 429's or 503's Retry-After.
 */
export class ConveyorHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | null,
    readonly method: string,
    readonly path: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(`${method} ${path} answered ${status}: ${body?.message ?? 'no error body'}`);
    this.name = 'ConveyorHttpError';
  }

  /** The fields a 400 named. */
  get fields(): string[] {
    return this.body?.details?.map((d) => d.field) ?? [];
  }
}
