import type { Client, PoolClient } from 'pg';

/** Code of {@link StatementDeadlineError}; `isConnectionError` counts it as the database being unreachable. */
export const STATEMENT_DEADLINE_CODE = 'CONVEYOR_STATEMENT_DEADLINE';

/** A statement went unanswered past its deadline; its connection was abandoned. */
export class StatementDeadlineError extends Error {
  readonly code = STATEMENT_DEADLINE_CODE;

  constructor(readonly deadlineMs: number) {
    super(`The database did not answer within ${deadlineMs} ms; the connection was abandoned`);
    this.name = 'StatementDeadlineError';
  }
}

/**
 * Closes a connection's socket at once, without the goodbye a clean `end()` sends and waits on: on a network
 * that drops packets that goodbye would hang as well. pg fails every statement still pending on the
 * connection (a connection error) and emits 'end'; a pool discards the client when it is released.
 */
export function abandonConnection(client: Client | PoolClient): void {
  const socket = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
  socket?.destroy();
}

/**
 * `answer`, or a {@link StatementDeadlineError} once `deadlineMs` passed without one, in which case the
 * connection the statement is on is abandoned: a statement that overran may be stuck in a dead TCP
 * connection, and whatever else waits on that connection would be stuck behind it.
 */
export function withinDeadline<T>(client: Client | PoolClient, answer: Promise<T>, deadlineMs: number): Promise<T> {
  if (!Number.isFinite(deadlineMs)) return answer;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new StatementDeadlineError(deadlineMs));
      abandonConnection(client);
    }, deadlineMs);
    answer.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
