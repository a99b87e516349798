import type { Client, PoolClient } from 'pg';
import { tcpSocketOf } from './engine-socket';

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
 * Characters of parameter text a statement's deadline allows one millisecond for, besides its deadline: about 1 MB/s
 * for carrying the text to the server and parsing and storing it there, well below what a healthy link and server
 * do. A statement carrying a result or payload of tens of MB takes the database seconds; without this, its deadline
 * would abandon a healthy connection and the statement would be sent again.
 */
const CHARS_PER_MS = 1000;

/**
 * How much longer than its deadline a statement carrying `values` may take, in ms: one per CHARS_PER_MS characters of
 * its text parameters (and bytes of its binary ones), arrays counted element by element.
 */
export function carriageMs(values: readonly unknown[] | undefined): number {
  let chars = 0;
  for (const value of values ?? []) chars += sizeOf(value);
  return Math.floor(chars / CHARS_PER_MS);
}

function sizeOf(value: unknown): number {
  if (typeof value === 'string' || Buffer.isBuffer(value)) return value.length;
  if (!Array.isArray(value)) return 0;
  let chars = 0;
  for (const element of value) chars += sizeOf(element);
  return chars;
}

/** The part of a connection's socket that abandoning it uses (a net.Socket; a TLS socket's reset throws). */
interface AbandonedSocket {
  destroy(): void;
  resetAndDestroy?(): void;
}

/**
 * Closes a connection's socket at once, without the goodbye a clean `end()` sends and waits on: on a network
 * that drops packets that goodbye would hang as well. pg fails every statement still pending on the
 * connection (a connection error) and emits 'end'; a pool discards the client when it is released.
 *
 * The socket is reset, not closed: a close leaves the statement's bytes the server has not acknowledged in the
 * kernel, which goes on sending them once the network heals, and the server would then run a statement this
 * process gave up on and will never read the answer to — a claim that takes jobs nobody runs until their leases
 * expire, each losing an attempt. A reset discards them. A TLS socket cannot be reset: the TCP socket under it is,
 * when the engine made it (engineSocket: dedicated clients, and the pool's connections the engine uses), and the TLS
 * socket ends with it; a TLS connection whose TCP socket pg made and keeps to itself (pg's native binding, a pool
 * given a stream of its own) is closed.
 */
export function abandonConnection(client: Client | PoolClient): void {
  const socket = tcpSocketOf(client) ?? (client as unknown as { connection?: { stream?: AbandonedSocket } }).connection?.stream;
  if (!socket) return;
  try {
    if (socket.resetAndDestroy) {
      socket.resetAndDestroy();
      return;
    }
  } catch {
    // not a TCP handle (TLS): closed below
  }
  socket.destroy();
}

/**
 * `answer`, or a {@link StatementDeadlineError} once `deadlineMs` passed without one, in which case the
 * connection the statement is on is abandoned: a statement that overran may be stuck in a dead TCP
 * connection, and whatever else waits on that connection would be stuck behind it.
 */
export function withinDeadline<T>(client: Client | PoolClient, answer: Promise<T>, deadlineMs: number): Promise<T> {
  if (!Number.isFinite(deadlineMs)) return answer;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const settle = (then: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      then();
    };
    const timer = setTimeout(() => {
      // After this process was busy past the deadline (its event loop blocked), expired timers run before the sockets
      // are read: an answer that arrived meanwhile gets that read (setImmediate runs after it) before it counts as late.
      setImmediate(() =>
        settle(() => {
          reject(new StatementDeadlineError(deadlineMs));
          abandonConnection(client);
        }),
      );
    }, deadlineMs);
    answer.then(
      (value) => settle(() => resolve(value)),
      (err: unknown) => settle(() => reject(err)),
    );
  });
}
