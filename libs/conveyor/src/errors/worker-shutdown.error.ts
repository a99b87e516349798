import { MESSAGES } from './conveyor.messages';

/**
 * The reason on a handler's AbortSignal when its worker stopped before the handler finished (past the shutdown grace
 * period): the job is handed back, waiting again with the attempt refunded.
 */
export class WorkerShutdownError extends Error {
  constructor() {
    super(MESSAGES.shuttingDown);
    this.name = 'WorkerShutdownError';
  }
}
