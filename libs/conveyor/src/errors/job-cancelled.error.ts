import { MESSAGES } from './conveyor.messages';

/**
 * The reason on a handler's AbortSignal when an operator cancelled its job while it ran (`POST /jobs/:id/cancel`,
 * a bulk cancel, `JobsService.cancel`). The job is CANCELLED already; whatever the handler does next is not stored.
 */
export class JobCancelledError extends Error {
  constructor(readonly jobId: string) {
    super(MESSAGES.cancelledWhileRunning(jobId));
    this.name = 'JobCancelledError';
  }
}
