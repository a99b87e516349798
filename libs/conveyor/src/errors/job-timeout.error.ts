import { MESSAGES } from './conveyor.messages';

/** An attempt ran longer than its handler's timeout. Counts as a normal failed attempt. */
export class JobTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(MESSAGES.timedOut(timeoutMs));
    this.name = 'JobTimeoutError';
  }
}
